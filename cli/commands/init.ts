import { resolveAdminToken, resolveUrl } from "../config";
import { UsageError } from "../errors";
import { call } from "../http";
import type { CommandContext } from "./context";
import type { WorkspaceCreated } from "../../lib/core/protocol/http";

type Created = WorkspaceCreated;

/** `chips init`: a new workspace with a room, a harness and its owner, via the admin API. */
export async function init({ opts, args, env, io }: CommandContext): Promise<void> {
  if (args.length) throw new UsageError(`init takes no arguments (got "${args[0]}")`);
  const url = resolveUrl(opts, env);
  const token = resolveAdminToken(opts, env);
  const body: Record<string, string> = {};
  for (const k of ["workspace", "space", "harness", "owner"] as const) if (opts[k] !== undefined) body[k] = opts[k]!;
  const made = await call<Created>({ url, token }, "POST", "/api/v1/admin/workspaces", JSON.stringify(body));

  if (opts.json) {
    const { workspace_id, space_id, harness_id, token, person_token, room_url } = made;
    io.out(JSON.stringify({ workspace_id, space_id, harness_id, token, person_token, room_url }) + "\n");
    return;
  }
  io.out(
    [
      `Created workspace ${made.workspace_id}`,
      `  room           ${made.space_id}`,
      `  room URL       ${made.room_url}`,
      `  harness        ${made.harness_id}`,
      `  harness token  ${made.token}`,
      `  person         ${made.person_id}`,
      `  person token   ${made.person_token}`,
      ``,
      `Keep the tokens secret. To post an event as the harness:`,
      `  CHIPS_TOKEN=${made.token} npx chips post event.json`,
      `(event.json: {"v":1,"type":"message.posted","id":"evt_<ULID>","workspace_id":"${made.workspace_id}",`,
      `  "space_id":"${made.space_id}","actor":{"kind":"harness","id":"${made.harness_id}"},`,
      `  "idempotency_key":"hello-1","text":"Hello"})`,
      ``,
    ].join("\n"),
  );
}
