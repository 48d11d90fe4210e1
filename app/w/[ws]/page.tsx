import Link from "next/link";
import { workspacePage } from "@/lib/server/pages/workspace";
import { PeoplePanel } from "@/components/workspace/people-panel";
import { NewRoomForm } from "@/components/workspace/new-room-form";
import { BudgetsPanel } from "@/components/workspace/budgets-panel";
import { WebhooksPanel } from "@/components/workspace/webhooks-panel";

export const dynamic = "force-dynamic";

const STATE_TONE: Record<string, string> = {
  running: "bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-200",
  paused: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  queued: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
};

/** The workspace: its rooms, each with the runs going in it; and a form to create a room. */
export default async function WorkspacePage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  const d = await workspacePage(ws);
  return (
    <main className="mx-auto max-w-3xl px-6 py-10">
      <div className="flex flex-wrap items-baseline gap-x-4">
        <h1 className="text-xl font-semibold">{d.name}</h1>
        <Link
          data-testid="workspace-runs-link"
          className="text-sm text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300"
          href={`/w/${ws}/runs`}
        >
          Past runs
        </Link>
        <Link
          data-testid="workspace-inbox-link"
          className="text-sm text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300"
          href={`/w/${ws}/inbox`}
        >
          Needs you
        </Link>
      </div>
      {d.canAct && <NewRoomForm workspaceId={ws} />}
      <h2 className="mt-8 text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">Rooms</h2>
      <ul className="mt-2 divide-y divide-zinc-200 dark:divide-zinc-800">
        {d.rooms.map(({ going, ...r }) => (
          <li key={r.id} data-space-id={r.id} className="py-3">
            <Link
              className="font-medium hover:underline focus-visible:outline-2 focus-visible:outline-blue-600"
              href={`/w/${ws}/r/${r.id}`}
            >
              # {r.name}
            </Link>
            <span className="ml-2 text-xs text-zinc-600 dark:text-zinc-400">
              {going.length ? `${going.length} ${going.length === 1 ? "run" : "runs"} going` : "quiet"}
            </span>
            {going.length > 0 && (
              <ul className="mt-1 space-y-1">
                {going.map((x) => (
                  <li key={x.id} data-run-id={x.id} className="flex items-center gap-2 text-sm">
                    <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATE_TONE[x.state] ?? ""}`}>
                      {x.state === "queued" ? "waiting for a runner" : x.state}
                    </span>
                    <span className="text-zinc-600 dark:text-zinc-400">{x.harness ?? "no runner yet"}</span>
                    {/* [UI3]: a goal that is a person's words is already in the room; the list says only whose run it is */}
                    {x.goalFrom === null && <span className="truncate">{x.goal}</span>}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      <PeoplePanel
        workspaceId={ws}
        myId={d.myId}
        people={d.people}
        harnesses={d.harnesses}
        invites={d.invites}
        isOwner={d.isOwner}
      />
      {d.isOwner && (
        <BudgetsPanel workspaceId={ws} subjects={d.harnesses.map(({ id, name, kind }) => ({ id, name, kind }))} />
      )}
      {d.isOwner && <WebhooksPanel workspaceId={ws} />}
    </main>
  );
}
