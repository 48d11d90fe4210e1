import { memo } from "react";
import type { TimelineItem } from "@/lib/browser/room-state";
import type { Run } from "@/lib/core/protocol";
import { Collapsible, Markdown } from "@/components/ui/markdown";
import { actorName, harnessName, initials, type Directory } from "../../lib/core/views/names";
import { RunPanel } from "./run-panel";
import { RoomAsk } from "./room-ask";

const time = (ts: string) => new Date(ts).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

function Avatar({ name, kind }: { name: string; kind: string }) {
  const tone =
    kind === "person"
      ? "bg-violet-100 text-violet-900 dark:bg-violet-950 dark:text-violet-200"
      : "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200";
  return (
    <span
      aria-hidden
      className={`flex h-8 w-8 shrink-0 items-center justify-center rounded-full text-xs font-semibold ${tone}`}
    >
      {initials(name)}
    </span>
  );
}

function Message({
  item,
  author,
  badge,
  avatar,
}: {
  item: Extract<TimelineItem, { kind: "message" }>;
  author: string;
  badge?: string;
  avatar?: string;
}) {
  return (
    <div className="flex gap-3">
      <Avatar name={avatar ?? author} kind={item.actor.kind} />
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-baseline gap-x-2 text-sm">
          <span className="font-semibold">{author}</span>
          {badge && (
            <span className="rounded bg-zinc-100 px-1.5 text-[11px] font-medium text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
              {badge}
            </span>
          )}
          <time dateTime={item.ts} className="text-xs text-zinc-600 dark:text-zinc-400">
            {time(item.ts)}
          </time>
        </div>
        <div className="text-[15px] leading-relaxed">
          <Collapsible text={item.text}>
            <Markdown text={item.text} />
          </Collapsible>
        </div>
      </div>
    </div>
  );
}

/**
 * One entry of the timeline: a message, a run card (with its goal message first for
 * goal_from: harness), or a notice. Memoized: a scroll re-renders only the rows that entered.
 */
export const TimelineEntry = memo(function TimelineEntry({
  item,
  run,
  dir,
}: {
  item: TimelineItem;
  run?: Run;
  dir: Directory;
}) {
  switch (item.kind) {
    case "message": {
      const a = item.actor;
      const badge = a.kind === "harness" ? "harness" : a.kind === "agent" ? "agent" : undefined;
      return (
        <div data-seq={item.seq} className="px-4 py-2">
          <Message item={item} author={actorName(dir, a)} badge={badge} />
        </div>
      );
    }
    case "run":
      return (
        <div data-seq={item.seq} className="px-4 py-2">
          {run?.goal_from === "harness" && (
            // [UI3] a person asked at the harness's own surface: the room shows their words as their message.
            <div data-goal-of={run.id} className="mb-2">
              <Message
                item={{
                  kind: "message",
                  seq: item.seq,
                  id: `${item.id}-goal`,
                  ts: item.ts,
                  actor: { kind: "person", id: "" },
                  text: run.goal,
                }}
                author={`Asked at ${harnessName(dir, run.harness_id)}`}
                avatar="Person"
              />
            </div>
          )}
          <p className="mb-1.5 text-xs text-zinc-600 dark:text-zinc-400">
            {run?.request ? actorName(dir, run.actor) : harnessName(dir, run?.harness_id)} started a run ·{" "}
            <time dateTime={item.ts}>{time(item.ts)}</time>
          </p>
          {run ? <RunPanel run={run} dir={dir} /> : <p className="text-sm text-zinc-600">A run ({item.runId}).</p>}
        </div>
      );
    case "ask":
      return (
        <div data-seq={item.seq} id={item.askId} className="px-4 py-2">
          <RoomAsk item={item} dir={dir} />
        </div>
      );
    case "notice":
      return (
        <p
          data-seq={item.seq}
          {...(item.runId ? { "data-notice-of": item.runId } : {})}
          className="px-4 py-1.5 text-center text-xs text-zinc-600 dark:text-zinc-400"
        >
          <span className="font-medium">{actorName(dir, item.actor)}</span> {item.text} ·{" "}
          {run && (
            // Which run a notice is about ([DRV1]): its goal, cut by the browser, never in the text.
            <>
              <span className="inline-block max-w-[24ch] truncate align-bottom italic" title={run.goal}>
                {run.goal}
              </span>{" "}
              ·{" "}
            </>
          )}
          <time dateTime={item.ts}>{time(item.ts)}</time>
        </p>
      );
  }
});
