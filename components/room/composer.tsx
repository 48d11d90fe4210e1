"use client";

import { useEffect, useRef, useState } from "react";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";

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
  onSend: (text: string) => Promise<unknown>;
}) {
  const [draft, setDraft] = useState("");
  const post = useAction(onSend, {
    fields: ["text"],
    unreachable: "Could not reach Chips; your message is kept here.",
    refused: (s) => `Could not send (${s}).`,
    onDone: () => setDraft(""),
  });
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

  const send = () => draft.trim() && post.run(draft.trim());

  return (
    <Form action={post} className="border-t border-zinc-200 px-4 py-3 dark:border-zinc-800" onSubmit={send}>
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
              if (!post.busy) void send();
            }
          }}
          placeholder={`Message #${roomName}`}
          aria-describedby={post.fields.text ? "composer-hint composer-error" : "composer-hint"}
          aria-invalid={!!post.fields.text || undefined}
          className="max-h-40 min-h-10 flex-1 resize-none rounded-md border border-zinc-300 bg-white px-3 py-2 text-[15px] placeholder:text-zinc-500 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900"
        />
        <Button type="submit" tone="primary" size="lg" className="h-10" busy={post.busy}>
          Send
        </Button>
      </div>
      <p id="composer-hint" className="mt-1 hidden text-[11px] text-zinc-600 sm:block dark:text-zinc-400">
        Markdown. Enter sends, Shift+Enter adds a line, / jumps here.
      </p>
      <Alert id="composer-error" className="mt-1 text-sm">
        {post.fields.text ?? post.error}
      </Alert>
    </Form>
  );
}
