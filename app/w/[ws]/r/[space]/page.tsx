import { notFound } from "next/navigation";
import { roomPage } from "@/lib/server/pages/room";
import { RoomView } from "@/components/room/room-view";

export const dynamic = "force-dynamic";

export default async function RoomPage({ params }: { params: Promise<{ ws: string; space: string }> }) {
  const { ws, space } = await params;
  const data = await roomPage(ws, space);
  if (!data) notFound();
  return <RoomView {...data} workspaceId={ws} spaceId={data.snapshot.space_id} />;
}
