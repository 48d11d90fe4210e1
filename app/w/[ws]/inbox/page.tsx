import Link from "next/link";
import { inboxPage } from "@/lib/server/pages/inbox";
import { InboxView } from "@/components/asks/inbox-view";

export const dynamic = "force-dynamic";

/** The workspace's inbox ([ASK4]): what waits for a person across its rooms, oldest first, answered in place. */
export default async function InboxPage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  const p = await inboxPage(ws);
  return (
    <main className="mx-auto max-w-3xl px-6 py-10">
      <div className="flex flex-wrap items-baseline gap-x-4">
        <h1 className="text-xl font-semibold">Needs you</h1>
        <Link
          className="text-sm text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300"
          href={`/w/${ws}`}
        >
          {p.name}
        </Link>
      </div>
      <InboxView workspaceId={ws} initial={p.asks} dir={p.dir} canAct={p.canAct} />
    </main>
  );
}
