import Link from "next/link";
import { asc, eq } from "drizzle-orm";
import { spaces, workspaces } from "@/db/schema";
import { requirePerson, services } from "@/lib/server/page-context";

export const dynamic = "force-dynamic";

export default async function WorkspacePage({ params }: { params: Promise<{ ws: string }> }) {
  const { ws } = await params;
  await requirePerson(ws);
  const db = services().db;
  const [workspace] = await db.select().from(workspaces).where(eq(workspaces.id, ws)).limit(1);
  const rooms = await db.select().from(spaces).where(eq(spaces.workspaceId, ws)).orderBy(asc(spaces.createdAt));
  return (
    <main className="mx-auto max-w-2xl px-6 py-10">
      <h1 className="text-xl font-semibold">{workspace?.name}</h1>
      <h2 className="mt-6 text-sm font-medium uppercase tracking-wide text-zinc-500">Rooms</h2>
      <ul className="mt-2 divide-y divide-zinc-200 dark:divide-zinc-800">
        {rooms.map((r) => (
          <li key={r.id}>
            <Link className="block py-2 hover:underline focus-visible:outline-2" href={`/w/${ws}/r/${r.id}`}>
              # {r.name}
            </Link>
          </li>
        ))}
      </ul>
    </main>
  );
}
