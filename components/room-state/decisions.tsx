"use client";

import { useState } from "react";
import type { Decision } from "@/lib/core/protocol";
import { recordDecision } from "@/lib/browser/room-api";
import type { Decisions } from "@/lib/core/projection/decisions";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, Input, TextArea } from "../ui/field";
import { Form, SubmitOrCancel } from "../ui/form";
import { Markdown } from "../ui/markdown";
import { useAction } from "../ui/use-action";
import { ListSection } from "./list-section";
import { actorName, type Directory } from "../../lib/core/views/names";

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
    <ListSection
      label="Decisions"
      testId="decisions"
      count={active.length}
      add={canEdit ? { label: "Record a decision", testId: "decision-new", onClick: () => setForm({}) } : undefined}
      form={
        form && (
          <DecisionForm
            key={form.supersedes?.decision_id ?? "new"}
            workspaceId={workspaceId}
            spaceId={spaceId}
            supersedes={form.supersedes}
            onDone={() => setForm(null)}
          />
        )
      }
      empty="No decisions yet."
    >
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
    </ListSection>
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
        <Button tone="link" data-testid="decision-supersede" onClick={onSupersede} className="mt-1 text-xs">
          Supersede
        </Button>
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
  const record = useAction((d: Parameters<typeof recordDecision>[2]) => recordDecision(workspaceId, spaceId, d), {
    fields: ["title", "text"],
    onDone,
  });
  return (
    <Form
      action={record}
      data-testid="decision-form"
      className="space-y-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-800"
      onSubmit={() =>
        title.trim() &&
        text.trim() &&
        record.run({
          title: title.trim(),
          text: text.trim(),
          ...(supersedes ? { supersedes: supersedes.decision_id } : {}),
        })
      }
    >
      {supersedes && <p className="text-sm">Supersedes “{supersedes.title}”.</p>}
      <Field label="Title" error={record.fields.title} name="title">
        <Input data-testid="decision-title-input" value={title} onChange={(e) => setTitle(e.target.value)} required />
      </Field>
      <Field label="Decision" note="markdown" error={record.fields.text} name="text">
        <TextArea
          data-testid="decision-text-input"
          className="min-h-16"
          value={text}
          onChange={(e) => setText(e.target.value)}
          required
        />
      </Field>
      <Alert>{record.error}</Alert>
      <SubmitOrCancel testId="decision-record" busy={record.busy} onCancel={onDone}>
        Record
      </SubmitOrCancel>
    </Form>
  );
}
