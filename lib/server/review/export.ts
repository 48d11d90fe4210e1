import { buffer as readStream } from "node:stream/consumers";
import type { Db } from "@/db/client";
import type { ExportDocument, Run } from "@/lib/core/protocol";
import { getRun } from "@/lib/server/queries/runs";
import { namesOf, runEventBodies } from "@/lib/server/queries/review";
import { ChangeSetPayload } from "@/lib/core/protocol/runner-contract";
import { ObjectStore } from "../dispatch/objects";

/** Artifacts past this many bytes in all are left out of a JSON export (their metadata stays). */
const EXPORT_OBJECT_BYTES = 16 * 1024 * 1024;

/** A run's events in seq order as NDJSON: each line the stored event's exact JSON ([EXP1]). */
export async function runNdjson(db: Db, runIds: string[]): Promise<string> {
  const lines: string[] = [];
  for (const id of runIds) lines.push(...(await runEventBodies(db, id)));
  return lines.length ? lines.join("\n") + "\n" : "";
}

/**
 * Runs as one JSON document ([EXP1]): each run's read model and events, the names of the
 * people, harnesses and rooms they mention, and their artifacts while they fit.
 */
export async function exportDocument(
  deps: { db: Db; objects: ObjectStore },
  ws: string,
  runIds: string[],
): Promise<ExportDocument> {
  const runs: ExportDocument["runs"] = [];
  const models: Run[] = [];
  for (const id of runIds) {
    const run = await getRun(deps.db, id);
    if (!run || run.workspace_id !== ws) continue;
    models.push(run);
    runs.push({ run, events: (await runEventBodies(deps.db, id)).map((b) => JSON.parse(b)) });
  }
  const names = await namesOf(deps.db, ws);
  const mentioned = new Set<string>();
  for (const r of runs)
    for (const e of r.events)
      for (const m of JSON.stringify(e).matchAll(/\b(usr|hrn|rnr|spc)_[0-9A-Z]{26}\b/g)) mentioned.add(m[0]);
  const objects: NonNullable<ExportDocument["objects"]> = [];
  let bytes = 0;
  for (const run of models) {
    const cs = run.change_set ? ChangeSetPayload.safeParse(run.change_set).data : undefined;
    if (!cs) continue;
    for (const ref of [cs.diff, ...cs.checks.map((c) => c.output)]) {
      if (bytes + ref.bytes > EXPORT_OBJECT_BYTES) continue;
      const stream = await deps.objects.open(ObjectStore.keyOf(ws, run.id, ref.sha256));
      if (!stream) continue;
      const body = await readStream(stream);
      bytes += body.length;
      objects.push({ run_id: run.id, sha256: ref.sha256, base64: body.toString("base64") });
    }
  }
  return {
    chips_export: 1,
    exported_at: new Date().toISOString(),
    workspace_id: ws,
    directory: {
      persons: Object.fromEntries(names.people.filter((p) => mentioned.has(p.id)).map((p) => [p.id, p.name])),
      harnesses: Object.fromEntries(
        names.harnesses
          .filter((h) => mentioned.has(h.id))
          .map((h) => [h.id, { name: h.name, kind: h.kind === "runner" ? "runner" : "harness" }]),
      ),
      rooms: Object.fromEntries(names.rooms.filter((r) => mentioned.has(r.id)).map((r) => [r.id, r.name])),
    },
    runs,
    objects,
  };
}
