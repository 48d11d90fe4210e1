import { and, eq } from "drizzle-orm";
import { notFound } from "next/navigation";
import { spaces } from "@/db/schema";
import { requirePerson, services } from "@/lib/server/page-context";
import { RoomLive } from "@/components/room/room-live";

export const dynamic = "force-dynamic";

export default async function RoomPage({ params }: { params: Promise<{ ws: string; space: string }> }) {
  const { ws, space } = await params;
  const me = await requirePerson(ws);
  const [room] = await services()
    .db.select()
    .from(spaces)
    .where(and(eq(spaces.id, space), eq(spaces.workspaceId, ws)))
    .limit(1);
  if (!room) notFound();
  return <RoomLive workspaceId={ws} spaceId={room.id} roomName={room.name} personId={me.subjectId} />;
}
