"use client";

import { useEffect, useRef, useState } from "react";
import { ulid } from "ulid";
import { RoomFeed, type FeedEvent, type FeedStatus } from "@/lib/client/room-feed";

interface Props {
  workspaceId: string;
  spaceId: string;
  roomName: string;
  personId: string;
}

/** The live room: the feed kept by RoomFeed, drawn as a plain list, and a composer. */
export function RoomLive({ workspaceId, spaceId, roomName }: Props) {
  const [events, setEvents] = useState<FeedEvent[]>([]);
  const [status, setStatus] = useState<FeedStatus>("connecting");
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const feedRef = useRef<RoomFeed | null>(null);

  useEffect(() => {
    const feed = new RoomFeed({
      spaceId,
      onEvents: (fresh) => setEvents((prev) => [...prev, ...fresh]),
      onSnapshot: (s) => setEvents(s.events),
      onStatus: setStatus,
    });
    feedRef.current = feed;
    return () => feed.stop();
  }, [spaceId]);

  async function send() {
    const text = draft.trim();
    if (!text) return;
    setError(null);
    const res = await fetch("/api/v1/events", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ v: 1, type: "message.posted", id: `evt_${ulid()}`, idempotency_key: `msg_${ulid()}`, workspace_id: workspaceId, space_id: spaceId, text }),
    });
    if (res.ok) setDraft("");
    else setError(((await res.json().catch(() => null)) as { detail?: string } | null)?.detail ?? `could not send (${res.status})`);
  }

  return (
    <main className="mx-auto flex h-screen max-w-3xl flex-col px-4">
      <header className="flex items-center gap-3 border-b border-zinc-200 py-3 dark:border-zinc-800">
        <h1 className="font-semibold"># {roomName}</h1>
        <span data-testid="feed-status" data-status={status} className="text-xs text-zinc-500">
          {status}
        </span>
      </header>
      <ol data-testid="timeline" className="flex-1 overflow-y-auto py-3 text-sm">
        {events.map((e) => (
          <li key={e.seq} data-seq={e.seq} data-type={e.type} className="py-1">
            <span className="text-zinc-500">#{e.seq}</span> <span className="font-medium">{e.type}</span>{" "}
            <span>{typeof e.text === "string" ? e.text : typeof e.verb_phrase === "string" ? e.verb_phrase : typeof e.goal === "string" ? e.goal : ""}</span>
          </li>
        ))}
      </ol>
      <form
        className="flex gap-2 border-t border-zinc-200 py-3 dark:border-zinc-800"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label htmlFor="composer" className="sr-only">
          Message
        </label>
        <input
          id="composer"
          data-testid="composer"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          className="flex-1 rounded-md border border-zinc-300 bg-transparent px-3 py-2 dark:border-zinc-700"
          placeholder="Message the room"
        />
        <button type="submit" className="rounded-md bg-zinc-900 px-3 py-2 text-white dark:bg-zinc-100 dark:text-zinc-900">
          Send
        </button>
      </form>
      {error && (
        <p role="alert" className="pb-2 text-sm text-red-600">
          {error}
        </p>
      )}
    </main>
  );
}
