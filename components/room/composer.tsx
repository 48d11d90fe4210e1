"use client";

import { useEffect, useRef, useState } from "react";

/**
 * The composer: markdown, Enter sends, Shift+Enter for a new line, `/` anywhere focuses it.
 * The draft lives here (and in sessionStorage), so a reconnect or a reload keeps it.
 */
export function Composer({
  roomName,
  draftKey,
  onSend,
}: {
  roomName: string;
  draftKey: string;
  onSend: (text: string) => Promise<string | null>;
}) {
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    setDraft(sessionStorage.getItem(draftKey) ?? "");
  }, [draftKey]);
  useEffect(() => {
    if (draft) sessionStorage.setItem(draftKey, draft);
    else sessionStorage.removeItem(draftKey);
  }, [draft, draftKey]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (
        e.key === "/" &&
        !e.metaKey &&
        !e.ctrlKey &&
        t &&
        !["INPUT", "TEXTAREA"].includes(t.tagName) &&
        !t.isContentEditable
      ) {
        e.preventDefault();
        box.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  async function send() {
    const text = draft.trim();
    if (!text || sending) return;
    setSending(true);
    const err = await onSend(text);
    setSending(false);
    setError(err);
    if (!err) setDraft("");
  }

  return (
    <form
      className="border-t border-zinc-200 px-4 py-3 dark:border-zinc-800"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <div className="flex items-end gap-2">
        <label htmlFor="composer" className="sr-only">
          Message #{roomName}
        </label>
        <textarea
          id="composer"
          ref={box}
          data-testid="composer"
          rows={1}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
          placeholder={`Message #${roomName}`}
          aria-describedby="composer-hint"
          className="max-h-40 min-h-10 flex-1 resize-none rounded-md border border-zinc-300 bg-white px-3 py-2 text-[15px] placeholder:text-zinc-500 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900"
        />
        <button
          type="submit"
          disabled={sending}
          className="h-10 rounded-md bg-blue-700 px-4 text-sm font-medium text-white hover:bg-blue-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-60"
        >
          Send
        </button>
      </div>
      <p id="composer-hint" className="mt-1 hidden text-[11px] text-zinc-600 sm:block dark:text-zinc-400">
        Markdown. Enter sends, Shift+Enter adds a line, / jumps here.
      </p>
      {error && (
        <p role="alert" className="mt-1 text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </form>
  );
}
