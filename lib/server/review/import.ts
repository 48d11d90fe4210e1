import { createHash } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events as eventsTable, harnesses, persons, spaces } from "@/db/schema";
import {
  ID_PREFIX,
  newId,
  parseEvent,
  problem,
  type ExportDocument,
  type ImportAnswer,
  type IncomingEvent,
  type ProblemError,
} from "@/lib/core/protocol";
import type { Credential } from "../credentials";
import { bodyHash } from "../ingest/serialize";
import type { IngestWriter } from "../ingest/writer";
import type { ObjectStore } from "../dispatch/objects";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ANY_ID = new RegExp(
  `\\b(${Object.values(ID_PREFIX)
    .map((p) => p.slice(0, -1))
    .join("|")})_[0-9A-HJKMNP-TV-Z]{26}\\b`,
  "g",
);

/**
 * The id an imported id becomes in workspace `ws`: the same kind, a ULID-shaped digest of
 * the two. The same export imported twice into one workspace names everything the same
 * (so the second import is a replay, [EXP2]); into two workspaces, differently.
 */
function mappedId(ws: string, id: string): string {
  const at = id.indexOf("_");
  const digest = createHash("sha256").update(`${ws}\n${id}`).digest();
  let out = CROCKFORD[digest[0] & 7]; // a ULID's first character is at most 7
  for (let i = 1; i < 26; i++) out += CROCKFORD[digest[i] & 31];
  return id.slice(0, at + 1) + out;
}

export interface ImportDeps {
  db: Db;
  writer: IngestWriter;
  objects: ObjectStore;
}

type Refused = { ok: false; problem: ProblemError };

/**
 * Re-ingest an export into workspace `ws` through the one writer ([EXP2]): every event of
 * its runs in the source's seq order, each with the credential of its actor and the time
 * it was first stored, ids mapped (mappedId; rooms by name), so the runs fold into the same
 * read models and their pages show the same. New seqs; a re-import stores nothing new.
 * Events the writer derives by itself (a cancel's run.finished) are left for it to derive.
 */
export async function importRuns(deps: ImportDeps, ws: string, doc: ExportDocument): Promise<ImportAnswer | Refused> {
  const src = doc.workspace_id;
  const rooms = await roomMap(deps.db, ws, doc);
  const map = (id: string) => (id === src ? ws : (rooms.get(id) ?? mappedId(ws, id)));
  await namesFor(deps.db, ws, doc, map);

  const all: Exported[] = doc.runs.flatMap((r) => r.events).sort((a, b) => a.seq - b.seq);
  const prevOfRun = new Map<string, Exported>();
  const items: { event: IncomingEvent; cred: Credential; at: string; seq: number }[] = [];
  for (const e of all) {
    const runId = typeof e.run_id === "string" ? e.run_id : null;
    const prev = runId ? prevOfRun.get(runId) : undefined;
    if (runId) prevOfRun.set(runId, e);
    if (derivedByWriter(e, prev)) continue;
    const { ts, seq, ...rest } = e;
    const text = JSON.stringify({
      ...rest,
      idempotency_key: `import:${digest(`${src}\n${e.idempotency_key ?? e.id}`)}`,
    }).replace(ANY_ID, (id) => map(id));
    const parsed = parseEvent(JSON.parse(text), `/events/${seq}`);
    if (!parsed.ok)
      return { ok: false, problem: { ...parsed.problem, detail: `event seq ${seq}: ${parsed.problem.detail}` } };
    items.push({ event: parsed.event, cred: credentialOf(ws, parsed.event), at: ts, seq });
  }

  const known = await existing(
    deps.db,
    items.map((i) => i.event.id),
  );
  for (let i = 0; i < items.length;) {
    const key = credKey(items[i].cred);
    let j = i + 1;
    while (j < items.length && j - i < 500 && credKey(items[j].cred) === key) j++;
    const group = items.slice(i, j);
    const cred = group[0].cred;
    const r = await deps.writer.submit(ws, {
      credential: cred,
      events: group.map((g) => g.event),
      hashes: group.map((g) => bodyHash(g.event, cred)),
      pointers: group.map((g) => `/events/${g.seq}`),
      storedAt: group.map((g) => g.at),
    });
    if (!r.ok)
      return {
        ok: false,
        problem: {
          ...r.problem,
          detail: `the export's event seq ${group[0].seq}…${group[group.length - 1].seq} was refused: ${r.problem.detail}`,
        },
      };
    i = j;
  }

  for (const o of doc.objects ?? []) {
    const runId = map(o.run_id);
    const body = Buffer.from(o.base64, "base64");
    if (createHash("sha256").update(body).digest("hex") !== o.sha256)
      return { ok: false, problem: problem("validation_failed", `object ${o.sha256} does not hash to its name`) };
    await deps.objects.put(ws, runId, body);
  }
  const stored = items.filter((i) => !known.has(i.event.id)).length;
  return {
    runs: doc.runs.map((r) => ({ from: String(r.run.id), to: map(String(r.run.id)) })),
    stored,
    replayed: items.length - stored,
  };
}

const digest = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 40);

/** An exported event as the import reads it before mapping (it is parsed again after). */
type Exported = ExportDocument["runs"][number]["events"][number];

/** A system run.finished{cancelled} right after an applied ack or a cancel: what the writer appends itself. */
function derivedByWriter(e: Exported, prev: Exported | undefined): boolean {
  const actor = e.actor as { kind?: unknown } | undefined;
  if (e.type !== "run.finished" || actor?.kind !== "system" || e.outcome !== "cancelled" || !prev) return false;
  return (
    (prev.type === "run.command_acked" && prev.result === "applied") ||
    (prev.type === "run.command" && prev.command === "cancel")
  );
}

/** The credential an imported event is sent with: its actor's (an agent speaks through its harness). */
function credentialOf(ws: string, e: IncomingEvent): Credential {
  const a = e.actor!;
  switch (a.kind) {
    case "person":
      return { kind: "person", workspaceId: ws, subjectId: a.id };
    case "system":
      return { kind: "system", workspaceId: ws, subjectId: "system" };
    case "agent":
      return harnessCred(ws, a.harness_id ?? "");
    case "harness":
      return harnessCred(ws, a.id);
  }
}

const harnessCred = (ws: string, id: string): Credential => ({
  kind: id.startsWith(ID_PREFIX.runner) ? "runner" : "harness",
  workspaceId: ws,
  subjectId: id,
});
const credKey = (c: Credential) => `${c.kind}:${c.subjectId}`;

async function existing(db: Db, ids: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .select({ id: eventsTable.id })
      .from(eventsTable)
      .where(inArray(eventsTable.id, ids.slice(i, i + 1000)));
    for (const r of rows) out.add(r.id);
  }
  return out;
}

/** Source room → a room of this workspace with the same name (made when there is none). */
async function roomMap(db: Db, ws: string, doc: ExportDocument): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const wanted = new Set(
    doc.runs.flatMap((r) => r.events.map((e) => e.space_id).filter((s): s is string => typeof s === "string")),
  );
  for (const id of wanted) {
    const name = doc.directory.rooms[id] ?? "imported";
    const [found] = await db
      .select({ id: spaces.id })
      .from(spaces)
      .where(and(eq(spaces.workspaceId, ws), eq(spaces.name, name)))
      .limit(1);
    if (found) out.set(id, found.id);
    else {
      const made = newId("space");
      await db.insert(spaces).values({ id: made, workspaceId: ws, name });
      out.set(id, made);
    }
  }
  return out;
}

/** The people and harnesses the export names, under their mapped ids (no credentials: they cannot sign in or post). */
async function namesFor(db: Db, ws: string, doc: ExportDocument, map: (id: string) => string) {
  const people = Object.entries(doc.directory.persons).map(([id, name]) => ({
    id: map(id),
    workspaceId: ws,
    name,
    role: "viewer",
  }));
  const hs = Object.entries(doc.directory.harnesses).map(([id, h]) => ({
    id: map(id),
    workspaceId: ws,
    name: h.name,
    kind: h.kind,
  }));
  if (people.length) await db.insert(persons).values(people).onConflictDoNothing();
  if (hs.length) await db.insert(harnesses).values(hs).onConflictDoNothing();
}
