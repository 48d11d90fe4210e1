import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./proc";
import { summarizeHeapProfile } from "./heap-profile";
import { table } from "./table";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame lives, short: ours by repo path, packages by name, node internals as such. */
function where(url: string): string {
  if (!url) return "(native)";
  if (url.startsWith("node:")) return url;
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return path.relative(ROOT, url.replace(/^file:\/\//, ""));
}

const AREAS: [RegExp, string][] = [
  [
    /^(@hono|hono$|node:internal\/deps\/undici|node:internal\/webstreams|node:internal\/abort_controller|node:internal\/worker\/js_transferable|node:_http|node:http|node:internal\/streams|node:net|lib\/server\/api)/,
    "HTTP (node http, Hono, undici Request, web streams)",
  ],
  [/^(@electric-sql|wasm:|drizzle-orm|postgres$|db\/)/, "database (driver, drizzle, PGlite wasm)"],
  [
    /^(lib\/server\/ingest|lib\/protocol|zod|lib\/server\/hash|lib\/server\/credentials|lib\/server\/presence|ulid)/,
    "ingest (validation, hashing, writer)",
  ],
  [
    /^(socket\.io|engine\.io|ws$|lib\/server\/realtime|node:internal\/stream_base_commons|base64id)/,
    "realtime (Socket.IO, ws, hub)",
  ],
  [/^(next|react|react-dom|app\/|components\/)/, "pages (Next.js)"],
];

function areaOf(w: string): string {
  for (const [re, name] of AREAS) if (re.test(w)) return name;
  return w.startsWith("node:") ? "node internals (other)" : w === "(native)" ? "native (no caller)" : `other: ${w}`;
}

/** A frame's name and place (tsx-compiled files report line 0: no line then). */
const label = (n: Node) =>
  `${n.callFrame.functionName || "(anonymous)"} ${where(n.callFrame.url)}${n.callFrame.lineNumber > 0 ? `:${n.callFrame.lineNumber + 1}` : ""}`;

/** Self time by function and by package/file in a `.cpuprofile`, biggest first (a `.heapprofile`: bytes allocated). */
export function summarizeProfile(file: string, top = 15): string {
  if (file.endsWith(".heapprofile")) return summarizeHeapProfile(file, top);
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const w = where(n.callFrame.url);
    const name = label(n);
    fn.set(name, (fn.get(name) ?? 0) + us);
    const group = ["(idle)", "(program)", "(garbage collector)"].includes(n.callFrame.functionName)
      ? n.callFrame.functionName
      : w;
    pkg.set(group, (pkg.get(group) ?? 0) + us);
  }
  // Inclusive time of the project's own functions (and a few library entry points): each
  // sample counts once for every distinct such function on its stack.
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => [
        k.length > 90 ? k.slice(0, 87) + "…" : k,
        (us / 1000).toFixed(0),
        `${((us / total) * 100).toFixed(1)}%`,
      ]);
  const ours = (n: Node) => /^(lib|db|server\.ts|app)/.test(where(n.callFrame.url)) && n.callFrame.functionName !== "";
  const incl = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at)!;
      if (!ours(n)) continue;
      const k = label(n);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + us);
    }
  }
  // By area: a native frame counts for the nearest caller with a source file.
  const areas = new Map<string, number>();
  for (const [id, us] of self) {
    let at: number | undefined = id;
    let n = byId.get(id)!;
    if (["(idle)", "(program)", "(garbage collector)"].includes(n.callFrame.functionName)) {
      areas.set(n.callFrame.functionName, (areas.get(n.callFrame.functionName) ?? 0) + us);
      continue;
    }
    while (at !== undefined && !byId.get(at)!.callFrame.url) at = parent.get(at);
    if (at !== undefined) n = byId.get(at)!;
    const a = areaOf(where(n.callFrame.url));
    areas.set(a, (areas.get(a) ?? 0) + us);
  }
  return [
    `profile ${path.basename(file)}: ${(total / 1e6).toFixed(1)} s sampled`,
    table(["by area (self; native frames count for their caller)", "ms", "share"], rows(areas)),
    table(["by package / file (self)", "ms", "share"], rows(pkg)),
    table(["by function (self)", "ms", "share"], rows(fn)),
    table(["project functions (inclusive: self + callees)", "ms", "share"], rows(incl)),
  ].join("\n");
}

/** The newest `.cpuprofile` in a directory, or null. */
export function newestProfile(dir: string): string | null {
  try {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
    files.sort((a, b) => fs.statSync(path.join(dir, b)).mtimeMs - fs.statSync(path.join(dir, a)).mtimeMs);
    return files.length ? path.join(dir, files[0]) : null;
  } catch {
    return null;
  }
}

// `node --import tsx bench/lib/profile.ts FILE.cpuprofile` prints the summary.
if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename)
  console.log(summarizeProfile(process.argv[2]));
