"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { SavedView } from "@/lib/core/protocol";
import { deleteView, saveView } from "@/lib/browser/review-api";
import { button, field, link, muted } from "./format";

/** A person's saved views of the runs page: links to their query strings; this view can be saved under a name. */
export function SavedViews({ ws, views, query }: { ws: string; views: SavedView[]; query: string }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <section aria-label="Saved views" className="mt-4 flex flex-wrap items-center gap-x-3 gap-y-2 text-sm">
      <span className={`text-xs font-medium uppercase tracking-wide ${muted}`}>Saved views</span>
      {views.length === 0 && <span className={`text-xs ${muted}`}>none yet</span>}
      {views.map((v) => (
        <span key={v.id} className="flex items-center gap-1" data-testid="saved-view">
          <Link className={link} href={`/w/${ws}/runs${v.query ? `?${v.query}` : ""}`}>
            {v.name}
          </Link>
          <button
            type="button"
            aria-label={`Delete the saved view ${v.name}`}
            className={`${muted} rounded px-1 hover:text-red-700 focus-visible:outline-2 focus-visible:outline-blue-600`}
            onClick={async () => {
              const r = await deleteView(ws, v.id);
              if (r.ok) router.refresh();
              else setError(r.detail);
            }}
          >
            ×
          </button>
        </span>
      ))}
      <form
        className="ml-auto flex items-center gap-2"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!name.trim()) return;
          setBusy(true);
          const r = await saveView(ws, name.trim(), query);
          setBusy(false);
          if (!r.ok) return setError(r.detail);
          setName("");
          setError(null);
          router.refresh();
        }}
      >
        <label htmlFor="view-name" className="sr-only">
          Name for this view
        </label>
        <input
          id="view-name"
          data-testid="view-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Name this view"
          className={field}
        />
        <button type="submit" className={button} disabled={busy || !name.trim()} data-testid="view-save">
          Save view
        </button>
      </form>
      {error && (
        <p role="alert" className="w-full text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </section>
  );
}
