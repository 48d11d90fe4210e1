import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import { serverWithWorkspace, message, post, readEvents, runStatus, startRun, type Workspace } from "./support/api";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 })));
afterAll(() => server?.close());

describe("[ENV8] [ENV9] concurrent ingest into one workspace", () => {
  it("[ENV8] 16 clients × 250 events, 50 sends of one key and refused events → seqs exactly 1..4001", async () => {
    const runId = await startRun(server, ws); // seq 1 belongs to the run
    const CLIENTS = 16;
    const PER = 250;
    const acked = new Set<string>();
    const refusals: Record<string, number> = {};
    const unexpected: string[] = [];

    const idem = runStatus(ws, runId, { verb_phrase: "one key, fifty sends" });
    let idemAnswers: Promise<{ status: number; text: string }[]> | null = null;

    const client = async (c: number) => {
      for (let i = 0; i < PER; i++) {
        if (c === 0 && i === PER / 2) {
          idemAnswers = Promise.all(Array.from({ length: 50 }, () => post(server, ws.token, idem)));
        }
        // Every tenth send, a client also sends something the rules refuse.
        if (i % 10 === 5) {
          const bad = i % 20 === 5 ? runStatus(ws, newId("run")) : { ...message(ws, "bad"), text: "" };
          const r = await post(server, ws.token, bad);
          refusals[r.body?.code] = (refusals[r.body?.code] ?? 0) + 1;
        }
        const e = message(ws, `c${c}-${i}`);
        const r = await post(server, ws.token, e);
        if (r.status === 201) acked.add(e.id);
        else unexpected.push(`${r.status} ${r.text}`);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    const answers = await idemAnswers!;

    expect(unexpected).toEqual([]);
    expect(acked.size).toBe(CLIENTS * PER);
    expect(refusals).toEqual({ run_not_found: CLIENTS * 13, validation_failed: CLIENTS * 12 });

    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1); // one stored event, answered identically

    const stored = await readEvents(server, ws);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: CLIENTS * PER + 2 }, (_, i) => i + 1));
    const ids = stored.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of acked) expect(ids).toContain(id);
    expect(stored.filter((e) => e.idempotency_key === idem.idempotency_key)).toHaveLength(1);
  });
});
