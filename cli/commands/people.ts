import { resolveUrl } from "../config";
import { UsageError } from "../errors";
import { call } from "../http";
import { defaultWorkspace, managerToken, workspaceFor } from "../workspace";
import type { CommandContext, Options } from "./context";

type PeopleOptions = Options & {
  role?: string;
  expires?: string;
  "many-uses"?: boolean;
  name?: string;
  token?: string;
};

const DURATION = /^(\d+)([mhd])$/;
const seconds = (s: string) => {
  const m = DURATION.exec(s);
  if (!m) throw new UsageError(`--expires takes a duration like 30m, 12h or 7d (got "${s}")`);
  return Number(m[1]) * { m: 60, h: 3600, d: 86400 }[m[2] as "m" | "h" | "d"];
};

interface TokenRow {
  id: string;
  last_used_at: string | null;
  revoked: boolean;
}
interface Access {
  people: { id: string; name: string; role: string; last_seen_at: string | null; tokens: TokenRow[] }[];
  harnesses: { id: string; name: string; kind: string; tokens: TokenRow[] }[];
  invites: { id: string; role: string; single_use: boolean; uses: number; expires_at: string }[];
}

const live = (tokens: TokenRow[]) => tokens.filter((t) => !t.revoked);
const tokenLines = (tokens: TokenRow[]) =>
  live(tokens)
    .map((t) => `  ${t.id}  last used ${t.last_used_at ?? "never"}\n`)
    .join("");

/**
 * `chips people invite --role owner|member|viewer [--expires 7d] [--many-uses]` prints an invite
 * link (single-use unless --many-uses); `chips people list` (people, then open invites);
 * `chips people role usr_… --role R`; `chips people withdraw inv_…`; `chips people revoke usr_…`
 * (their sessions, tokens and open rooms stop at once).
 */
export async function people({ opts: o, args, env, io }: CommandContext): Promise<void> {
  const opts = o as PeopleOptions;
  const url = resolveUrl(opts, env);
  const auth = { url, token: managerToken(opts, env) };
  const ws = encodeURIComponent(await workspaceFor(auth, opts.workspace, () => defaultWorkspace(opts, env, url)));
  const [verb, target, ...rest] = args;
  if (rest.length) throw new UsageError(`people ${verb} takes at most one argument`);
  const needs = (what: string) => {
    if (!target) throw new UsageError(`people ${verb} needs ${what}`);
    return encodeURIComponent(target);
  };
  if (verb === "invite") {
    if (!opts.role) throw new UsageError("people invite needs --role owner|member|viewer");
    const body = {
      role: opts.role,
      single_use: !opts["many-uses"],
      ...(opts.expires ? { expires_in_seconds: seconds(opts.expires) } : {}),
    };
    const made = await call<{ url: string; role: string; expires_at: string; single_use: boolean }>(
      auth,
      "POST",
      `/api/v1/workspaces/${ws}/invites`,
      JSON.stringify(body),
    );
    io.out(
      opts.json
        ? JSON.stringify(made) + "\n"
        : `${made.url}\n(${made.role}, ${made.single_use ? "single-use" : "any number of uses"}, until ${made.expires_at})\n`,
    );
  } else if (verb === "list") {
    const access = await call<Access>(auth, "GET", `/api/v1/workspaces/${ws}/access`);
    if (opts.json) return io.out(JSON.stringify(access.people) + "\n");
    const people = access.people.map(
      (p) =>
        `${p.id}  ${p.role.padEnd(6)}  ${p.name}  (last seen ${p.last_seen_at ?? "never"})\n${tokenLines(p.tokens)}`,
    );
    const invites = access.invites.map(
      (i) =>
        `${i.id}  ${i.role.padEnd(6)}  invite, ${i.single_use ? "single-use" : `used ${i.uses} times`}, until ${i.expires_at}\n`,
    );
    io.out(people.join("") + invites.join(""));
  } else if (verb === "role") {
    const id = needs("a person id (usr_…) and --role owner|member|viewer");
    if (!opts.role) throw new UsageError("people role needs --role owner|member|viewer");
    const changed = await call<{ id: string; role: string }>(
      auth,
      "PATCH",
      `/api/v1/workspaces/${ws}/people/${id}`,
      JSON.stringify({ role: opts.role }),
    );
    io.out(`${changed.id} is now ${changed.role}\n`);
  } else if (verb === "withdraw") {
    await call(auth, "DELETE", `/api/v1/workspaces/${ws}/invites/${needs("an invite id (inv_…)")}`);
    io.out(`withdrew ${target}\n`);
  } else if (verb === "revoke") {
    await call(auth, "DELETE", `/api/v1/workspaces/${ws}/people/${needs("a person id (usr_…)")}`);
    io.out(`revoked ${target}\n`);
  } else throw new UsageError(`people takes invite, list, role, withdraw or revoke (got "${verb ?? ""}")`);
}

/**
 * `chips harness token [--name N]` mints a harness and its token; `--harness hrn_…|rnr_…` mints
 * another token for one (to rotate: mint, switch, revoke the old) — shown once either way.
 * `chips harness list` shows harnesses and runners with their live tokens and last use;
 * `chips harness revoke hrn_…|rnr_…` stops all of one's tokens, `revoke tok_…` just that token.
 */
export async function harness({ opts: o, args, env, io }: CommandContext): Promise<void> {
  const opts = o as PeopleOptions;
  const url = resolveUrl(opts, env);
  const auth = { url, token: managerToken(opts, env) };
  const ws = await workspaceFor(auth, opts.workspace, () => defaultWorkspace(opts, env, url));
  const base = `/api/v1/workspaces/${encodeURIComponent(ws)}`;
  const [verb, target, ...rest] = args;
  if (rest.length) throw new UsageError(`harness ${verb} takes at most one argument`);
  if (verb === "token") {
    const made = opts.harness
      ? await call<{ harness_id: string; token_id: string; token: string }>(
          auth,
          "POST",
          `${base}/harnesses/${encodeURIComponent(opts.harness)}/tokens`,
          "{}",
        )
      : await call<{ harness_id: string; token: string }>(
          auth,
          "POST",
          `${base}/harnesses`,
          JSON.stringify({ name: opts.name ?? "harness" }),
        );
    io.out(
      opts.json
        ? JSON.stringify({ ...made, workspace_id: ws }) + "\n"
        : `harness ${made.harness_id} in ${ws}\ntoken (shown once): ${made.token}\n`,
    );
  } else if (verb === "list") {
    const { harnesses } = await call<Pick<Access, "harnesses">>(auth, "GET", `${base}/harnesses`);
    io.out(
      opts.json
        ? JSON.stringify(harnesses) + "\n"
        : harnesses.map((h) => `${h.id}  ${h.kind.padEnd(7)}  ${h.name}\n${tokenLines(h.tokens)}`).join(""),
    );
  } else if (verb === "revoke") {
    if (!target) throw new UsageError("harness revoke needs a harness, runner or token id (hrn_…, rnr_… or tok_…)");
    const path = target.startsWith("tok_")
      ? `${base}/tokens/${encodeURIComponent(target)}`
      : `${base}/harnesses/${encodeURIComponent(target)}`;
    await call(auth, "DELETE", path);
    io.out(`revoked ${target}\n`);
  } else throw new UsageError(`harness takes token, list or revoke (got "${verb ?? ""}")`);
}
