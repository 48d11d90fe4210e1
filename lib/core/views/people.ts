import { z } from "zod";

/** Who has access to a workspace, as its people page shows it (lib/server/queries/people.ts reads it). */

/** One bearer token as an owner sees it: never the token, only its public id and its use. */
export const TokenRow = z.object({
  id: z.string(),
  created_at: z.string(),
  /** Exact to about the credential cache time (30 s); null when never used. */
  last_used_at: z.string().nullable(),
  revoked: z.boolean(),
});
export type TokenRow = z.infer<typeof TokenRow>;
export const PersonRow = z.object({
  id: z.string(),
  name: z.string(),
  role: z.string(),
  /** The latest use of any of their browser sessions. */
  last_seen_at: z.string().nullable(),
  tokens: z.array(TokenRow),
});
export type PersonRow = z.infer<typeof PersonRow>;
export const HarnessRow = z.object({ id: z.string(), name: z.string(), kind: z.string(), tokens: z.array(TokenRow) });
export type HarnessRow = z.infer<typeof HarnessRow>;
export const InviteRow = z.object({
  id: z.string(),
  role: z.string(),
  single_use: z.boolean(),
  uses: z.number().int(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type InviteRow = z.infer<typeof InviteRow>;
