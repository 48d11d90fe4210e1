import { message, TransportError, type Workspace } from "../lib/api";
import { RawHttp } from "./raw-http";
import { Hist, monoMs, pctOf } from "../lib/hist";

export interface PostResult {
  /** Events stored (2xx), warm-up included. */
  ok: number;
  failed: number;
  firstError: string | null;
  /**
   * POSTs sent again, same body and idempotency key, after a reused keep-alive socket was reset
   * before any answer (nothing acknowledged, so the retry is the SDK's own rule); counted, not hidden.
   */
  retried: number;
  /** POST round trip, measured window only. */
  post: Hist;
  /** How late each POST left against its schedule (ms): the poster falling behind. */
  lagP99: number;
  lagMax: number;
  /** POSTs that left more than 5 ms late. */
  late: number;
  maxInFlight: number;
  /** Achieved sending rate, events/s. */
  rate: number;
}

/**
 * Open-loop poster: single-event POSTs at a fixed rate over keep-alive (up to `maxConns`
 * connections, `RawHttp`: the bench's own CPU per POST kept small), paced by a
 * scheduler (a 1 ms timer sends every event whose time has come), never waiting for
 * answers. Each event's text carries its *scheduled* send time on the monotonic clock, so
 * a poster or server that falls behind shows up as latency rather than hiding it.
 * The first `warmupS` seconds are marked w=0 and left out of the latency figures.
 */
export async function postOpenLoop(
  url: string,
  ws: Workspace,
  rate: number,
  warmupS: number,
  seconds: number,
  maxConns = 128,
): Promise<PostResult> {
  const u = new URL(url);
  const http = new RawHttp(u.hostname, Number(u.port), maxConns);
  const total = Math.round(rate * (warmupS + seconds));
  const warm = Math.round(rate * warmupS);
  const gap = 1000 / rate;
  const post = new Hist();
  const lags: number[] = [];
  let ok = 0;
  let failed = 0;
  let firstError: string | null = null;
  let retried = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let done = 0;
  let lastLeft = 0;
  const filler = "x".repeat(60);
  const t0 = monoMs() + 20;
  let finish!: () => void;
  const allDone = new Promise<void>((r) => (finish = r));

  const send = (i: number) => {
    const scheduled = t0 + i * gap;
    const w = i < warm ? 0 : 1;
    const ev = message(ws, `rt t=${scheduled.toFixed(3)} w=${w} i=${i} ${filler}`);
    const left = (lastLeft = monoMs());
    lags.push(left - scheduled);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const json = JSON.stringify(ev);
    const postIt = () => http.post("/api/v1/events", ws.token, json);
    postIt()
      .catch((e: unknown) => {
        if (!(e instanceof TransportError && e.reused && e.code === "ECONNRESET")) throw e;
        retried++;
        return postIt();
      })
      .then(
        (r) => {
          if (r.status === 201 || r.status === 200) {
            ok++;
            if (w) post.add(monoMs() - scheduled);
          } else {
            failed++;
            firstError ??= `${r.status} ${r.body.slice(0, 200)}`;
          }
        },
        (e) => {
          failed++;
          firstError ??= String(e);
        },
      )
      .finally(() => {
        inFlight--;
        if (++done === total) finish();
      });
  };

  let i = 0;
  const tick = () => {
    const now = monoMs();
    while (i < total && t0 + i * gap <= now) send(i++);
    if (i < total) setTimeout(tick, 1);
  };
  setTimeout(tick, 20);
  await allDone;
  http.close();
  const elapsed = lastLeft - t0 + gap;
  return {
    ok,
    failed,
    firstError,
    retried,
    post,
    lagP99: pctOf(lags, 99),
    lagMax: Math.max(...lags),
    late: lags.filter((l) => l > 5).length,
    maxInFlight,
    rate: (total / Math.max(elapsed, 1)) * 1000,
  };
}
