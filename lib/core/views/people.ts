/** Who has access to a workspace, as its people page shows it (lib/server/queries/people.ts reads it). */

/** One bearer token as an owner sees it: never the token, only its public id and its use. */
export interface TokenRow {
  id: string;
  created_at: string;
  /** Exact to about the credential cache time (30 s); null when never used. */
  last_used_at: string | null;
  revoked: boolean;
}
export interface PersonRow {
  id: string;
  name: string;
  role: string;
  /** The latest use of any of their browser sessions. */
  last_seen_at: string | null;
  tokens: TokenRow[];
}
export interface HarnessRow {
  id: string;
  name: string;
  kind: string;
  tokens: TokenRow[];
}
export interface InviteRow {
  id: string;
  role: string;
  single_use: boolean;
  uses: number;
  created_at: string;
  expires_at: string;
}
