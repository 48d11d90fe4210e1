import { table } from "../lib/table";

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

export const TRACE_CATEGORIES = [
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "v8",
  "blink.user_timing",
  "loading",
];

/**
 * Where the renderer's long tasks (≥ 50 ms) spent their time: self time by trace event name
 * (FunctionCall = JS, UpdateLayoutTree = style, Layout, Paint, *GC, …) inside them, on the
 * page's main thread, from a Chromium trace.
 */
export function longTaskBreakdown(json: Buffer, minMs = 50): string {
  const events = (JSON.parse(json.toString("utf8")) as { traceEvents: TraceEvent[] }).traceEvents;
  const mains = events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain");
  // The renderer main thread with the most complete events is the page's.
  let best: { pid: number; tid: number; n: number } | null = null;
  for (const m of mains) {
    const n = events.filter((e) => e.pid === m.pid && e.tid === m.tid && e.ph === "X").length;
    if (!best || n > best.n) best = { pid: m.pid, tid: m.tid, n };
  }
  if (!best) return "(no renderer main thread in the trace)";
  const xs = events
    .filter((e) => e.pid === best!.pid && e.tid === best!.tid && e.ph === "X" && typeof e.dur === "number")
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const tasks = xs.filter(
    (e) => (e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask") && e.dur! >= minMs * 1000,
  );
  // Keep only outermost tasks (RunTask can nest).
  const outer = tasks.filter(
    (t, i) => !tasks.some((o, j) => j !== i && o.ts <= t.ts && o.ts + o.dur! >= t.ts + t.dur! && o.dur! > t.dur!),
  );
  const self = new Map<string, number>();
  let total = 0;
  for (const t of outer) {
    const end = t.ts + t.dur!;
    const inside = xs.filter((e) => e.ts >= t.ts && e.ts + e.dur! <= end);
    const stack: { e: TraceEvent; self: number }[] = [];
    const close = (upTo: number) => {
      while (stack.length && stack[stack.length - 1].e.ts + stack[stack.length - 1].e.dur! <= upTo) {
        const s = stack.pop()!;
        self.set(s.e.name, (self.get(s.e.name) ?? 0) + Math.max(0, s.self));
      }
    };
    for (const e of inside) {
      close(e.ts);
      if (stack.length) stack[stack.length - 1].self -= e.dur!;
      stack.push({ e, self: e.dur! });
    }
    close(Infinity);
    total += t.dur!;
  }
  const rows = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 14)
    .map(([k, us]) => [k, (us / 1000).toFixed(0), `${((us / Math.max(1, total)) * 100).toFixed(1)}%`]);
  const longest = Math.max(0, ...outer.map((t) => t.dur! / 1000));
  return [
    `${outer.length} tasks ≥ ${minMs} ms on the page's main thread, ${(total / 1000).toFixed(0)} ms in all, longest ${longest.toFixed(0)} ms; self time inside them:`,
    table(["trace event (self time)", "ms", "share"], rows),
  ].join("\n");
}
