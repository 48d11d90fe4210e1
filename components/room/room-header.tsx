import type { ReactNode } from "react";
import type { FeedStatus } from "@/lib/browser/room-feed";
import type { Run } from "@/lib/core/protocol";

const LIVE: Record<FeedStatus, { text: string; dot: string }> = {
  live: { text: "Live", dot: "bg-green-600" },
  connecting: { text: "Connecting", dot: "bg-zinc-400" },
  reconnecting: { text: "Reconnecting", dot: "bg-amber-500" },
  storage: { text: "Reconnecting to storage", dot: "bg-amber-500" },
  revoked: { text: "Access revoked", dot: "bg-red-600" },
  error: { text: "Disconnected", dot: "bg-red-600" },
};

/** Room name, workspace, a calm live dot, the runs going, and goals no person's words carry ([UI3]). */
export function RoomHeader({
  roomName,
  workspaceName,
  status,
  active,
  present = [],
  actions,
  runsHref,
}: {
  roomName: string;
  workspaceName: string;
  status: FeedStatus;
  active: Run[];
  present?: { id: string; name: string }[];
  actions?: ReactNode;
  runsHref?: string;
}) {
  const live = LIVE[status];
  const saying = active.filter((r) => r.goal_from === null);
  return (
    <header className="border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 className="text-base font-semibold"># {roomName}</h1>
        <span className="text-sm text-zinc-600 dark:text-zinc-400">{workspaceName}</span>
        {runsHref && (
          <a
            href={runsHref}
            data-testid="room-runs-link"
            className="text-sm text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300"
          >
            Past runs
          </a>
        )}
        <span
          data-testid="feed-status"
          data-status={status}
          className="ml-auto flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400"
        >
          <span aria-hidden className={`h-2 w-2 rounded-full ${live.dot}`} />
          {live.text}
        </span>
        {present.length > 0 && (
          <span
            data-testid="present-people"
            className="text-xs text-zinc-600 dark:text-zinc-400"
            aria-label="People in this room"
          >
            Here:{" "}
            {present.map((x, i) => (
              <span key={x.id} data-person-id={x.id}>
                {i > 0 ? ", " : ""}
                {x.name}
              </span>
            ))}
          </span>
        )}
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          {active.length} {active.length === 1 ? "run" : "runs"} going
        </span>
        {actions}
      </div>
      {saying.map((r) => (
        <p
          key={r.id}
          data-testid="run-goal"
          data-run-id={r.id}
          className="mt-1 truncate text-sm text-zinc-800 dark:text-zinc-200"
          title={r.goal}
        >
          <span className="sr-only">Goal: </span>
          {r.goal}
        </p>
      ))}
    </header>
  );
}
