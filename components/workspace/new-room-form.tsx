"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { createRoom, failureLine } from "@/lib/browser/api";

/** Create a room in this workspace, then open it. */
export function NewRoomForm({ workspaceId }: { workspaceId: string }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="mt-4 flex gap-2"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!name.trim()) return;
        setBusy(true);
        try {
          const room = await createRoom(workspaceId, name.trim());
          setBusy(false);
          router.push(`/w/${workspaceId}/r/${room.id}`);
        } catch (e) {
          setBusy(false);
          setError(failureLine(e, "Could not create the room.", () => "Could not create the room."));
        }
      }}
    >
      <label htmlFor="new-room" className="sr-only">
        New room name
      </label>
      <input
        id="new-room"
        data-testid="new-room-name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        placeholder="New room, e.g. release-train"
        maxLength={200}
        className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900"
      />
      <button
        type="submit"
        data-testid="new-room-create"
        disabled={busy || !name.trim()}
        className="rounded-md bg-blue-700 px-3 py-2 text-sm font-medium text-white hover:bg-blue-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-60"
      >
        Create room
      </button>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </form>
  );
}
