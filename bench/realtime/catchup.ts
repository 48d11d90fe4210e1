import type http from "node:http";
import { io, type Socket } from "socket.io-client";
import { request, type Workspace } from "../lib/api";
import { median, monoMs } from "../lib/hist";

type Ev = { seq: number; prev_seq?: number };

export interface CatchUpResult {
  /** join from 0 → the `snapshot` (runs + newest 1,000) arrived, ms. */
  snapshot: number;
  snapshotBytes: number;
  /** join from 0 → all 10,000 in hand (snapshot, then `history` pages of 1,000 back), ms. */
  joinAll: number;
  /** `history` pages of 1,000 from the newest back, on a joined socket: all 10,000, ms. */
  historyAll: number;
  historyPage: number;
  /** HTTP `GET …/events?after=&limit=1000&space=` × 10 over keep-alive, ms. */
  httpAll: number;
  /** join exactly 1,000 behind → those 1,000 as `events` and the ack, ms. */
  join1000: number;
  reps: number;
}

async function connect(url: string, token: string | null): Promise<{ s: Socket; ms: number }> {
  const t0 = monoMs();
  const s = io(url, {
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
    auth: token ? { token } : undefined,
  });
  await new Promise<void>((res, rej) => {
    s.once("connect", () => res());
    s.once("connect_error", rej);
  });
  return { s, ms: monoMs() - t0 };
}

/** History pages of `limit` back from `before` until `want` events are held. */
async function pageBack(
  s: Socket,
  room: { space_id: string; workspace_id?: string },
  before: number | null,
  have: number,
  want: number,
  pages: number[],
): Promise<number> {
  while (have < want) {
    const p0 = monoMs();
    const r = (await s.timeout(30_000).emitWithAck("history", { ...room, before_seq: before, limit: 1000 })) as {
      ok?: boolean;
      events?: Ev[];
    };
    pages.push(monoMs() - p0);
    if (!r.ok || !r.events?.length) break;
    have += r.events.length;
    before = r.events[0].seq;
    if (r.events[0].prev_seq === 0) break;
  }
  return have;
}

/** Chips: a room holding `total` events (seeded by the caller), `reps` fresh sockets. */
export async function chipsCatchUp(
  agent: http.Agent,
  url: string,
  ws: Workspace,
  total: number,
  head: number,
  reps: number,
): Promise<CatchUpResult> {
  const r = {
    snapshot: [] as number[],
    bytes: [] as number[],
    joinAll: [] as number[],
    historyAll: [] as number[],
    page: [] as number[],
    http: [] as number[],
    j1000: [] as number[],
  };
  for (let k = 0; k < reps; k++) {
    // (a) + (b): join from 0 → snapshot; then page back to all `total`.
    {
      const { s } = await connect(url, ws.person_token);
      const t0 = monoMs();
      const snap = new Promise<{ events: Ev[] }>((res) => s.once("snapshot", res));
      s.emit("join", { v: 1, space_id: ws.space_id, after_seq: 0 }, () => {});
      const sn = await snap;
      const tSnap = monoMs() - t0;
      r.snapshot.push(tSnap);
      const pages: number[] = [];
      const have = await pageBack(
        s,
        { space_id: ws.space_id },
        sn.events[0]?.seq ?? null,
        sn.events.length,
        total,
        pages,
      );
      if (have < total) throw new Error(`catch-up got ${have} of ${total}`);
      r.joinAll.push(monoMs() - t0);
      // Sized after the clock stops: re-encoding 1,000 events is the bench's work, not the catch-up's.
      r.bytes.push(JSON.stringify(sn).length);
      s.disconnect();
    }
    // History alone, on a joined socket (what RoomFeed.older does, pages of 1,000).
    {
      const { s } = await connect(url, ws.person_token);
      await s.timeout(30_000).emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: head });
      const pages: number[] = [];
      const t0 = monoMs();
      const have = await pageBack(s, { space_id: ws.space_id }, null, 0, total, pages);
      r.historyAll.push(monoMs() - t0);
      r.page.push(median(pages));
      if (have < total) throw new Error(`history got ${have} of ${total}`);
      // Join exactly 1,000 behind: the missed events come as `events`, no snapshot.
      const got = { n: 0 };
      s.on("events", (b: Ev[]) => (got.n += b.length));
      const t1 = monoMs();
      await s.timeout(30_000).emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: head - 1000 });
      r.j1000.push(monoMs() - t1);
      if (got.n < 1000) throw new Error(`join 1000 behind delivered ${got.n}`);
      s.disconnect();
    }
    // HTTP catch-up, 10 pages of 1,000.
    {
      const t0 = monoMs();
      let after = head - total;
      let have = 0;
      while (have < total) {
        const q = `${url}/api/v1/workspaces/${ws.workspace_id}/events?after=${after}&limit=1000&space=${ws.space_id}`;
        const res = await request(agent, q, "GET", ws.person_token);
        const b = JSON.parse(res.body) as { events: Ev[]; next_after: number };
        if (!b.events?.length) break;
        have += b.events.length;
        after = b.next_after;
      }
      r.http.push(monoMs() - t0);
    }
  }
  return {
    snapshot: median(r.snapshot),
    snapshotBytes: median(r.bytes),
    joinAll: median(r.joinAll),
    historyAll: median(r.historyAll),
    historyPage: median(r.page),
    httpAll: median(r.http),
    join1000: median(r.j1000),
    reps,
  };
}

/** The baseline: `total` rows, `history` pages of 1,000 from the newest back, fresh socket each rep. */
export async function baselineCatchUp(
  url: string,
  room: { workspace_id: string; space_id: string },
  total: number,
  reps: number,
): Promise<{ historyAll: number; historyPage: number }> {
  const all: number[] = [];
  const page: number[] = [];
  for (let k = 0; k < reps; k++) {
    const { s } = await connect(url, null);
    const pages: number[] = [];
    const t0 = monoMs();
    const have = await pageBack(s, room, null, 0, total, pages);
    all.push(monoMs() - t0);
    page.push(median(pages));
    s.disconnect();
    if (have < total) throw new Error(`baseline history got ${have} of ${total}`);
  }
  return { historyAll: median(all), historyPage: median(page) };
}
