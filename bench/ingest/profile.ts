import fs from "node:fs";
import path from "node:path";

/** A V8 CPU profile (`.cpuprofile`) as written by the inspector's Profiler.stop. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  totalMs: number;
  idlePct: number;
  /** Self time by where the code lives: a package, node internals, GC, the project's own files. */
  byArea: [string, number][];
  /** Self time by function. */
  bySelf: [string, number][];
  /** Inclusive (synchronous) time of the project's own functions. */
  byTotal: [string, number][];
}

const ROOT = path.resolve(import.meta.dirname, "../..");

/** A frame's file path: no scheme, no loader query string. */
const clean = (url: string) => url.replace(/^file:\/\//, "").split("?")[0];

function area(url: string, fn: string): string {
  if (!url) return fn.startsWith("(") ? fn : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith("node:")) return "node internals";
  if (url.startsWith("wasm://")) return "PGlite WASM (Postgres itself)";
  const file = clean(url);
  if (file.startsWith(ROOT)) return path.relative(ROOT, file).split("/").slice(0, 2).join("/");
  return "other";
}

function label(f: { functionName: string; url: string; lineNumber: number }): string {
  const fn = f.functionName || "(anonymous)";
  if (!f.url) return fn;
  const file = clean(f.url);
  const short = file.includes("node_modules/")
    ? file.slice(file.lastIndexOf("node_modules/") + 13)
    : file.startsWith(ROOT)
      ? path.relative(ROOT, file)
      : file;
  // Files run through tsx report line 1 for everything: the name alone says more.
  return f.lineNumber > 0 ? `${fn} ${short}:${f.lineNumber + 1}` : `${fn} ${short}`;
}

export function summarizeProfile(file: string): ProfileSummary {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++)
    selfUs.set(p.samples[i], (selfUs.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));

  const areaT = new Map<string, number>();
  const selfT = new Map<string, number>();
  const totalT = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    const f = n.callFrame;
    total += us;
    if (f.functionName === "(idle)") {
      idle += us;
      continue;
    }
    add(areaT, area(f.url, f.functionName), us);
    add(selfT, label(f), us);
    // Inclusive time of project functions: each distinct project frame on the stack once.
    const seen = new Set<string>();
    for (
      let cur: number | undefined = id, depth = 0;
      cur !== undefined && depth < 500;
      cur = parent.get(cur), depth++
    ) {
      const cf = byId.get(cur)!.callFrame;
      const file = clean(cf.url);
      if (!file.startsWith(ROOT) || file.includes("node_modules/")) continue;
      const l = label(cf);
      if (!seen.has(l)) {
        seen.add(l);
        add(totalT, l, us);
      }
    }
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => [k, v / 1000] as [string, number]);
  return {
    totalMs: total / 1000,
    idlePct: total ? (idle / total) * 100 : 0,
    byArea: top(areaT, 12),
    bySelf: top(selfT, 15),
    byTotal: top(totalT, 12),
  };
}

function add(m: Map<string, number>, k: string, v: number) {
  m.set(k, (m.get(k) ?? 0) + v);
}

/** Plain-text rendering: shares of the window's wall time (busy = 100% − idle). */
export function renderProfile(name: string, s: ProfileSummary): string {
  const pct = (ms: number) => `${((ms / s.totalMs) * 100).toFixed(1).padStart(5)}%`;
  const lines = [
    `CPU profile of the server, ${name}: ${s.totalMs.toFixed(0)} ms sampled, idle ${s.idlePct.toFixed(0)}%`,
  ];
  lines.push("  self time by area:");
  for (const [k, v] of s.byArea) lines.push(`    ${pct(v)}  ${k}`);
  lines.push("  self time by function:");
  for (const [k, v] of s.bySelf) lines.push(`    ${pct(v)}  ${k}`);
  lines.push("  inclusive (synchronous) time of project functions:");
  for (const [k, v] of s.byTotal) lines.push(`    ${pct(v)}  ${k}`);
  return lines.join("\n");
}
