import { requirePerson, services } from "@/lib/server/page-context";
import { inbox } from "@/lib/server/queries/asks";
import { directoryOf } from "@/lib/server/queries/review";
import { workspaceName } from "@/lib/server/queries/workspace";

/** The workspace's inbox ([ASK4]): what waits for a person across its rooms, oldest first. */
export async function inboxPage(ws: string) {
  const me = await requirePerson(ws);
  const db = services().db;
  const [name, asks, dir] = await Promise.all([
    workspaceName(db, ws),
    inbox(db, ws, { waiting: true, limit: 500 }),
    directoryOf(db, ws),
  ]);
  return {
    name: name ?? ws,
    asks,
    dir: { persons: dir.persons, harnesses: dir.harnesses },
    canAct: me.role !== "viewer",
  };
}
