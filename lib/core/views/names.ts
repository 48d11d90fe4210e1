import type { Actor, Run } from "@/lib/core/protocol";

/** Display names of a workspace's people and harnesses. */
export interface Directory {
  persons: Record<string, string>;
  harnesses: Record<string, string>;
}

const short = (id: string) => `${id.slice(0, id.indexOf("_") + 1)}…${id.slice(-4)}`;

export function harnessName(dir: Directory, id: string | null | undefined): string {
  return id ? (dir.harnesses[id] ?? short(id)) : "a harness";
}

/** Who works a run: its runner once one took it, its harness, or for a queued run "a runner". */
export function runHarnessName(
  dir: Directory,
  run: Pick<Run, "harness_id" | "runner" | "request"> | undefined,
): string {
  if (run?.runner) return run.runner.name;
  if (!run?.harness_id && run?.request) return "a runner";
  return harnessName(dir, run?.harness_id);
}

/** "Dana", "codex", or for an agent "agt_…1234 via codex" ([UI2]). */
export function actorName(dir: Directory, a: Actor | null | undefined): string {
  if (!a) return "someone";
  switch (a.kind) {
    case "person":
      return dir.persons[a.id] ?? "someone";
    case "harness":
      return harnessName(dir, a.id);
    case "agent":
      return `${short(a.id)} via ${harnessName(dir, a.harness_id)}`;
    default:
      return "Chips";
  }
}

export function initials(name: string): string {
  const parts = name
    .replace(/[^\p{L}\p{N} ]/gu, " ")
    .trim()
    .split(/\s+/);
  return ((parts[0]?.[0] ?? "?") + (parts[1]?.[0] ?? "")).toUpperCase();
}
