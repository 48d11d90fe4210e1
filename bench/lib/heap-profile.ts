import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./proc";
import { table } from "./table";

interface HeapNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
  samples: { size: number; nodeId: number }[];
}

const short = (url: string) => {
  if (!url) return "(native)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) return url.slice(nm + 13);
  return url.startsWith("node:") ? url : path.relative(ROOT, url.replace(/^file:\/\//, ""));
};
const label = (n: HeapNode) =>
  `${n.callFrame.functionName || "(anonymous)"} ${short(n.callFrame.url)}${n.callFrame.lineNumber > 0 ? `:${n.callFrame.lineNumber + 1}` : ""}`;
const ours = (n: HeapNode) => /^(lib|db|server\.ts)/.test(short(n.callFrame.url)) && n.callFrame.functionName !== "";

/**
 * Bytes allocated by function in a `.heapprofile` taken with the collected objects kept
 * (prof-hook.ts, CHIPS_BENCH_PROF_KIND=heap): what feeds the garbage collector, not what
 * stays. Self (where the allocation happened) and inclusive for the project's own functions.
 */
export function summarizeHeapProfile(file: string, top = 15): string {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as HeapProfile;
  const stacks = new Map<number, HeapNode[]>();
  const walk = (n: HeapNode, up: HeapNode[]) => {
    const stack = [...up, n];
    stacks.set(n.id, stack);
    for (const c of n.children) walk(c, stack);
  };
  walk(p.head, []);
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let total = 0;
  for (const s of p.samples) {
    const stack = stacks.get(s.nodeId);
    if (!stack) continue;
    total += s.size;
    const k = label(stack[stack.length - 1]);
    self.set(k, (self.get(k) ?? 0) + s.size);
    for (const name of new Set(stack.filter(ours).map(label))) incl.set(name, (incl.get(name) ?? 0) + s.size);
  }
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, b]) => [
        k.length > 90 ? k.slice(0, 87) + "…" : k,
        (b / 1e6).toFixed(1),
        `${((b / total) * 100).toFixed(1)}%`,
      ]);
  const cols = (first: string) => [first, "MB", "share"];
  return [
    `heap profile ${path.basename(file)}: ${(total / 1e6).toFixed(1)} MB allocated`,
    table(cols("allocated in (self)"), rows(self)),
    table(cols("project functions (inclusive)"), rows(incl)),
  ].join("\n");
}
