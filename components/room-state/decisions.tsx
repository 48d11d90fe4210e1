"use client";

import { useState } from "react";
import type { Decision } from "@/lib/core/protocol";
import { recordDecision } from "@/lib/browser/room-api";
import type { Decisions } from "@/lib/core/projection/decisions";
import { Markdown } from "../ui/markdown";
import { actorName, type Directory } from "../../lib/core/views/names";

const field =
  "w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900";
const button =
  "rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-60";

/**
 * The room's decisions ([DEC1]): the active ones, each attributed and timestamped, a form to
 * record one, and Supersede on each active one (the new decision replaces it). Superseded
 * ones stay readable below.
 */
export function DecisionsView({
  workspaceId,
  spaceId,
  decisions,
  dir,
  canEdit = true,
}: {
  workspaceId: string;
  spaceId: string;
  decisions: Decisions;
  dir: Directory;
  canEdit?: boolean;
}) {
  const all = Object.values(decisions).sort((a, b) => a.seq - b.seq);
  const active = all.filter((d) => d.status === "active");
  const superseded = all.filter((d) => d.status === "superseded");
  const [form, setForm] = useState<{ supersedes?: Decision } | null>(null);
  return (
    <section data-testid="decisions" aria-label="Decisions" className="space-y-2">
      <div className="flex items-center">
        <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
          Decisions ({active.length})
        </h3>
        {canEdit && !form && (
          <button
            type="button"
            data-testid="decision-new"
            className={`${button} ml-auto border border-zinc-300 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800`}
            onClick={() => setForm({})}
          >
            Record a decision
          </button>
        )}
      </div>
      {form && (
        <DecisionForm
          key={form.supersedes?.decision_id ?? "new"}
          workspaceId={workspaceId}
          spaceId={spaceId}
          supersedes={form.supersedes}
          onDone={() => setForm(null)}
        />
      )}
      {active.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">No decisions yet.</p>}
      <ul className="space-y-2">
        {active.map((d) => (
          <DecisionItem
            key={d.decision_id}
            d={d}
            dir={dir}
            onSupersede={canEdit ? () => setForm({ supersedes: d }) : undefined}
            decisions={decisions}
          />
        ))}
      </ul>
      {superseded.length > 0 && (
        <details className="text-sm">
          <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
            Superseded ({superseded.length})
          </summary>
          <ul className="mt-2 space-y-2 opacity-75">
            {superseded.map((d) => (
              <DecisionItem key={d.decision_id} d={d} dir={dir} decisions={decisions} />
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function DecisionItem({
  d,
  dir,
  decisions,
  onSupersede,
}: {
  d: Decision;
  dir: Directory;
  decisions: Decisions;
  onSupersede?: () => void;
}) {
  const by = d.superseded_by ? decisions[d.superseded_by] : undefined;
  return (
    <li
      data-testid="decision"
      data-decision-id={d.decision_id}
      data-status={d.status}
      className="rounded-md border border-zinc-200 p-2 dark:border-zinc-800"
    >
      <p className="text-sm font-medium" data-testid="decision-title">
        {d.title}
      </p>
      <div className="text-sm">
        <Markdown text={d.text} />
      </div>
      <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="decision-meta">
        {actorName(dir, d.actor)} · <time dateTime={d.ts}>{new Date(d.ts).toLocaleString()}</time>
        {d.supersedes && decisions[d.supersedes] ? ` · replaces “${decisions[d.supersedes].title}”` : ""}
        {by ? ` · superseded by “${by.title}”` : d.status === "superseded" ? " · withdrawn" : ""}
      </p>
      {onSupersede && (
        <button
          type="button"
          data-testid="decision-supersede"
          onClick={onSupersede}
          className="mt-1 text-xs font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300"
        >
          Supersede
        </button>
      )}
    </li>
  );
}

function DecisionForm({
  workspaceId,
  spaceId,
  supersedes,
  onDone,
}: {
  workspaceId: string;
  spaceId: string;
  supersedes?: Decision;
  onDone: () => void;
}) {
  const [title, setTitle] = useState("");
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      data-testid="decision-form"
      className="space-y-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-800"
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy || !title.trim() || !text.trim()) return;
        setBusy(true);
        const err = await recordDecision(workspaceId, spaceId, {
          title: title.trim(),
          text: text.trim(),
          ...(supersedes ? { supersedes: supersedes.decision_id } : {}),
        });
        setBusy(false);
        if (err) setError(err);
        else onDone();
      }}
    >
      {supersedes && <p className="text-sm">Supersedes “{supersedes.title}”.</p>}
      <label className="block text-sm font-medium">
        Title
        <input
          data-testid="decision-title-input"
          className={field}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          required
        />
      </label>
      <label className="block text-sm font-medium">
        Decision <span className="font-normal text-zinc-600 dark:text-zinc-400">(markdown)</span>
        <textarea
          data-testid="decision-text-input"
          className={`${field} min-h-16`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          required
        />
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
      <div className="flex gap-2">
        <button
          type="submit"
          data-testid="decision-record"
          disabled={busy}
          className={`${button} bg-blue-700 text-white hover:bg-blue-800`}
        >
          Record
        </button>
        <button
          type="button"
          onClick={onDone}
          className={`${button} border border-zinc-300 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800`}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
