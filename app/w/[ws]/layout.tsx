import { AskWatcher } from "@/components/asks/ask-watcher";

/** Every page of a workspace: new asks notify the person wherever they are in it ([ASK4]). */
export default async function WorkspaceLayout({
  children,
  params,
}: {
  children: React.ReactNode;
  params: Promise<{ ws: string }>;
}) {
  const { ws } = await params;
  return (
    <>
      {children}
      <AskWatcher workspaceId={ws} />
    </>
  );
}
