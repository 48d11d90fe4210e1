import { randomBytes } from "node:crypto";
import {
  clipUtf8,
  newId,
  type Ask,
  type Receipt,
  type Run,
  type ShareBody,
  type ShareLink,
  type StoredEvent,
} from "@/lib/core/protocol";
import { emptyRuns, foldEvents } from "@/lib/core/projection/fold";
import { namesOf, runEventBodies } from "@/lib/server/queries/review";
import { insertShare, liveShare, logShareOpen } from "@/lib/server/queries/shares";
import type { Credential } from "../credentials";
import { sha256 } from "../hash";
import { getRun, receiptsOf } from "@/lib/server/queries/runs";
import { asksOfRuns } from "@/lib/server/queries/asks";
import type { ChipsServices } from "../services";

/** Most of a visitor's user agent an open's log keeps, in UTF-8 bytes. */
const USER_AGENT_BYTES = 300;

/**
 * Share links ([SHR1], docs/REVIEW.md): a read-only view of one run for someone without a
 * session. The token is 32 random bytes (256 bits: not guessable), shown once in the link
 * and stored only as its SHA-256, so the database alone opens nothing.
 */

/** What a token looks like: 32 bytes in base64url. Anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The shared view's address: the token goes in the query, whose values the request log drops. */
const sharePath = (token: string) => `/share?token=${token}`;

/** Make a link to `run` for `person`; answers the link and its URL (the only time the token is seen). */
export async function createShare(
  svc: Pick<ChipsServices, "config" | "db">,
  person: Credential,
  run: Run,
  body: ShareBody,
): Promise<{ link: ShareLink; url: string }> {
  const token = randomBytes(32).toString("base64url");
  const link = await insertShare(svc.db, {
    id: newId("share"),
    tokenHash: sha256(token),
    workspaceId: run.workspace_id,
    runId: run.id,
    fromSeq: body.from_seq ?? null,
    toSeq: body.to_seq ?? null,
    createdBy: person.subjectId,
    expiresAt: new Date(Date.now() + body.expires_in_seconds * 1000).toISOString(),
  });
  return { link, url: `${svc.config.publicUrl}${sharePath(token)}` };
}

/** One run as a share link shows it: the run as of the range's end, its events in the range, its receipts. */
export interface SharedRun {
  share: { id: string; expires_at: string; from_seq: number | null; to_seq: number | null };
  run: Run;
  events: StoredEvent[];
  receipts: Receipt[];
  /** The asks made in the range, as they stood at its end ([ASKR1]). */
  asks: Ask[];
  /** Names of the people, harnesses and room the run and the shown events mention: never the workspace's whole directory. */
  names: { persons: Record<string, string>; harnesses: Record<string, string>; rooms: Record<string, string> };
}

/**
 * Open a link: null when the token is malformed, unknown, revoked or expired (the page
 * answers 404 alike, so a link's fate is not told). A miss counts as a failed sign-in
 * attempt of the address; each open is logged with when and from where.
 */
export async function openShare(
  svc: Pick<ChipsServices, "attempts" | "db">,
  token: string,
  from: { address: string | null; userAgent: string | null },
): Promise<SharedRun | null> {
  const link = TOKEN.test(token) ? await liveShare(svc.db, sha256(token)) : null;
  const model = link ? await getRun(svc.db, link.runId) : null;
  if (!link || !model || model.workspace_id !== link.workspaceId) {
    svc.attempts.failed(from.address ?? undefined, "share link");
    return null;
  }
  await logShareOpen(svc.db, {
    shareId: link.id,
    workspaceId: link.workspaceId,
    address: from.address,
    userAgent:
      from.userAgent === undefined || from.userAgent === null ? null : clipUtf8(from.userAgent, USER_AGENT_BYTES),
  });
  const all = (await runEventBodies(svc.db, link.runId)).map((b) => JSON.parse(b) as StoredEvent);
  const share = {
    id: link.id,
    expires_at: new Date(link.expiresAt).toISOString(),
    from_seq: link.fromSeq,
    to_seq: link.toSeq,
  };
  const within = (seq: number) =>
    (link.fromSeq === null || seq >= link.fromSeq) && (link.toSeq === null || seq <= link.toSeq);
  const events = all.filter((e) => within(e.seq));
  let run: Run | undefined = model;
  let receipts: Receipt[];
  let asks: Ask[];
  if (link.toSeq === null)
    [receipts, asks] = await Promise.all([receiptsOf(svc.db, [model.id]), asksOfRuns(svc.db, [model.id])]);
  else {
    // A range shows the run as it stood at its end: the one projection over the log up to there
    // (from the run's start, so a range that begins later still has its asks).
    const view = foldEvents(
      emptyRuns(),
      all.filter((e) => e.seq <= link.toSeq!),
    );
    run = view.runs[model.id];
    receipts = view.receipts[model.id] ?? [];
    asks = view.asks[model.id] ?? [];
  }
  if (!run) return null;
  receipts = receipts.filter((r) => within(r.seq));
  asks = asks.filter((a) => within(a.seq));
  return { share, run, events, receipts, asks, names: await namesIn(svc.db, run, events, receipts) };
}

async function namesIn(
  db: ChipsServices["db"],
  run: Run,
  events: StoredEvent[],
  receipts: Receipt[],
): Promise<SharedRun["names"]> {
  const mentioned = new Set<string>([run.space_id, run.harness_id ?? ""]);
  for (const e of events)
    for (const m of JSON.stringify(e).matchAll(/\b(usr|hrn|rnr|spc)_[0-9A-Z]{26}\b/g)) mentioned.add(m[0]);
  for (const r of receipts) mentioned.add(r.person_id);
  const n = await namesOf(db, run.workspace_id);
  const pick = (rows: { id: string; name: string }[]) =>
    Object.fromEntries(rows.filter((r) => mentioned.has(r.id)).map((r) => [r.id, r.name]));
  return { persons: pick(n.people), harnesses: pick(n.harnesses), rooms: pick(n.rooms) };
}
