import { resolveAdminToken, resolveToken, resolveUrl } from "../config";
import { UsageError } from "../errors";
import { call } from "../http";
import type { CommandContext, Options } from "./context";

type PeopleOptions = Options & { role?: string; expires?: string; "many-uses"?: boolean; name?: string; token?: string };

/** Who manages: an owner's person token (--token) or the admin token of the data dir. */
const managerToken = (opts: PeopleOptions, env: CommandContext["env"]) => opts.token ?? resolveAdminToken(opts, env);

/** --workspace, else the workspace of the server's default harness token. */
export async function workspaceOf(opts: Options, env: CommandContext["env"], url: string): Promise<string> {
  if (opts.workspace) return opts.workspace;
  const me = await call<{ workspace_id: string }>({ url, token: resolveToken({ ...opts, token: undefined }, env) }, "GET", "/api/v1/me");
  return me.workspace_id;
}

const DURATION = /^(\d+)([mhd])$/;
const seconds = (s: string) => {
  const m = DURATION.exec(s);
  if (!m) throw new UsageError(`--expires takes a duration like 30m, 12h or 7d (got "${s}")`);
  return Number(m[1]) * { m: 60, h: 3600, d: 86400 }[m[2] as "m" | "h" | "d"];
};

/**
 * `chips people invite --role owner|member|viewer [--expires 7d] [--many-uses]` prints an invite
 * link (single-use unless --many-uses); `chips people list`; `chips people revoke usr_…`
 * (their sessions, tokens and open rooms stop at once).
 */
export async function people({ opts: o, args, env, io }: CommandContext): Promise<void> {
  const opts = o as PeopleOptions;
  const url = resolveUrl(opts, env);
  const ws = encodeURIComponent(await workspaceOf(opts, env, url));
  const auth = { url, token: managerToken(opts, env) };
  const [verb, target, ...rest] = args;
  if (rest.length) throw new UsageError(`people ${verb} takes at most one argument`);
  if (verb === "invite") {
    if (!opts.role) throw new UsageError("people invite needs --role owner|member|viewer");
    const body = { role: opts.role, single_use: !opts["many-uses"], ...(opts.expires ? { expires_in_seconds: seconds(opts.expires) } : {}) };
    const made = await call<{ url: string; role: string; expires_at: string; single_use: boolean }>(auth, "POST", `/api/v1/workspaces/${ws}/invites`, JSON.stringify(body));
    io.out(opts.json ? JSON.stringify(made) + "\n" : `${made.url}\n(${made.role}, ${made.single_use ? "single-use" : "any number of uses"}, until ${made.expires_at})\n`);
  } else if (verb === "list") {
    const { people: list } = await call<{ people: { id: string; name: string; role: string }[] }>(auth, "GET", `/api/v1/workspaces/${ws}/people`);
    io.out(opts.json ? JSON.stringify(list) + "\n" : list.map((p) => `${p.id}  ${p.role.padEnd(6)}  ${p.name}\n`).join(""));
  } else if (verb === "revoke") {
    if (!target) throw new UsageError("people revoke needs a person id (usr_…)");
    await call(auth, "DELETE", `/api/v1/workspaces/${ws}/people/${encodeURIComponent(target)}`);
    io.out(`revoked ${target}\n`);
  } else throw new UsageError(`people takes invite, list or revoke (got "${verb ?? ""}")`);
}

/** `chips harness token [--name N]` mints a harness and its token (shown once); `chips harness revoke hrn_…|rnr_…`. */
export async function harness({ opts: o, args, env, io }: CommandContext): Promise<void> {
  const opts = o as PeopleOptions;
  const url = resolveUrl(opts, env);
  const ws = await workspaceOf(opts, env, url);
  const auth = { url, token: managerToken(opts, env) };
  const [verb, target] = args;
  if (verb === "token") {
    const made = await call<{ harness_id: string; token: string }>(auth, "POST", `/api/v1/workspaces/${encodeURIComponent(ws)}/harnesses`, JSON.stringify({ name: opts.name ?? "harness" }));
    io.out(opts.json ? JSON.stringify({ ...made, workspace_id: ws }) + "\n" : `harness ${made.harness_id} in ${ws}\ntoken (shown once): ${made.token}\n`);
  } else if (verb === "revoke") {
    if (!target) throw new UsageError("harness revoke needs a harness or runner id (hrn_… or rnr_…)");
    await call(auth, "DELETE", `/api/v1/workspaces/${encodeURIComponent(ws)}/harnesses/${encodeURIComponent(target)}`);
    io.out(`revoked ${target}\n`);
  } else throw new UsageError(`harness takes token or revoke (got "${verb ?? ""}")`);
}
