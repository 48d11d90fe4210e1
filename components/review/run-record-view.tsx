import type { RunPageData } from "@/lib/core/views/review-pages";
import { commandAudit, planVsActual, stepBars } from "@/lib/core/review/run-story";
import { agentOf, durationMs } from "@/lib/core/review/facets";
import { ChangeSetPayload } from "@/lib/core/protocol/runner-contract";
import { ChangeSet } from "@/components/room/change-set";
import { actorName, runHarnessName } from "@/lib/core/views/names";
import { StepGantt } from "./step-gantt";
import { TaskSnapshotView } from "./task-snapshot";
import { PlanVsActual } from "./plan-vs-actual";
import { CommandAuditTable } from "./command-audit";
import { Annotations } from "./annotations";
import { ChangeSetSummary } from "./run-record";
import { LogSectionView } from "./log-section";
import { ToolCallsSection } from "./tool-calls-section";
import { AsksSection } from "./asks-section";
import { muted, STATUS_TONE, statusText, took, tokens, usd, when } from "./format";

function Section({ title, id, children }: { title: string; id: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="mt-8">
      <h2 id={id} className="mb-2 text-sm font-semibold uppercase tracking-wide text-zinc-700 dark:text-zinc-300">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** What the record draws: the run page's data (a share link's view has the same), and whether it is shared. */
export type RunRecordProps = Pick<RunPageData, "run" | "log" | "receipts" | "names" | "now" | "canAct"> & {
  /** A shared view ([SHR1]): artifacts (diff, check output) are not offered, only their summary. */
  shared?: boolean;
};

/**
 * One run, looked back on: who asked for what, the plan in time and against what happened,
 * statuses, messages, commands, changes, usage. The run page and a share link's view draw it alike.
 */
export function RunRecord({ run, log, receipts, names, now, canAct, shared = false }: RunRecordProps) {
  const status = statusText(run);
  const queued = log.head.find((e) => e.type === "run.queued");
  const more = shared ? null : run.id;
  const askedBy = queued
    ? actorName(names, queued.actor)
    : run.goal_from === "harness"
      ? `a person at ${runHarnessName(names, run)}`
      : null;
  const bars = stepBars(run, receipts, now);
  const from = run.started_at ?? run.created_at;
  const to = run.finished_at ?? now;
  const changeSet = run.change_set ? ChangeSetPayload.safeParse(run.change_set).data : undefined;
  const agent = agentOf(run);
  const dt = "text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
  return (
    <>
      <div className="mt-4 flex flex-wrap items-center gap-2">
        <span
          data-testid="run-status"
          className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_TONE[status] ?? ""}`}
        >
          {status}
        </span>
        <h1 className="text-xl font-semibold" data-testid="run-page-goal">
          {run.goal}
        </h1>
      </div>
      {run.summary && <p className="mt-2 whitespace-pre-wrap text-sm">{run.summary}</p>}
      <dl className="mt-4 grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4">
        <div>
          <dt className={dt}>Asked by</dt>
          <dd>{askedBy ?? "the harness"}</dd>
        </div>
        <div>
          <dt className={dt}>Harness · agent</dt>
          <dd>
            {runHarnessName(names, run)}
            {agent && <span className={muted}> · {agent}</span>}
            {run.session_ref && <span className={`block text-xs ${muted}`}>{run.session_ref}</span>}
          </dd>
        </div>
        <div>
          <dt className={dt}>Started · finished</dt>
          <dd className="tabular-nums">
            {when(run.started_at ?? run.created_at)} · {when(run.finished_at)}
          </dd>
        </div>
        <div>
          <dt className={dt}>Duration</dt>
          <dd className="tabular-nums" data-testid="run-duration">
            {took(durationMs(run))}
          </dd>
        </div>
        <div>
          <dt className={dt}>Tokens · cost</dt>
          <dd className="tabular-nums" data-testid="run-usage">
            {run.usage
              ? `${tokens(run.usage.input_tokens)} in · ${tokens(run.usage.output_tokens)} out${run.usage.cached_input_tokens ? ` · ${tokens(run.usage.cached_input_tokens)} cached` : ""} · ${usd(run.usage.cost_usd ?? null)}`
              : "not reported"}
          </dd>
        </div>
        {run.request && (
          <div className="col-span-2">
            <dt className={dt}>Asked of the runner</dt>
            <dd>
              {run.request.repository} @ {run.request.base_branch} · {run.request.profile}
              {run.request.required_commands.length > 0 && (
                <span className={muted}> · checks: {run.request.required_commands.join(", ")}</span>
              )}
            </dd>
          </div>
        )}
        {run.runner_error && (
          <div className="col-span-2">
            <dt className={dt}>Runner error</dt>
            <dd className="text-red-800 dark:text-red-300">{run.runner_error}</dd>
          </div>
        )}
      </dl>
      {run.request?.task && !shared && (
        <TaskSnapshotView task={run.request.task} personName={(id) => names.persons[id] ?? "someone"} />
      )}
      <Section title="Review" id="review">
        <Annotations
          runId={run.id}
          events={log.head}
          dir={names}
          files={changeSet?.files.map((f) => f.path) ?? []}
          canAct={canAct}
        />
      </Section>
      <Section title="Plan timeline" id="gantt">
        <StepGantt bars={bars} from={from} to={to} asks={log.asks} />
      </Section>
      <Section title="Tool calls" id="calls">
        <ToolCallsSection run={run} calls={log.calls} runId={more} />
      </Section>
      <Section title="Asks" id="asks">
        <AsksSection
          asks={log.asks}
          dir={names}
          replay={shared ? null : `/w/${run.workspace_id}/runs/${run.id}/replay`}
        />
      </Section>
      <Section title="Plan vs what happened" id="plan">
        <PlanVsActual lines={planVsActual(run, log.head)} />
      </Section>
      <Section title="Commands" id="audit">
        <CommandAuditTable audit={commandAudit(receipts, log.between)} dir={names} />
      </Section>
      <Section title="Status history" id="statuses">
        <LogSectionView runId={more} section="statuses" first={log.sections.statuses} dir={names} />
      </Section>
      <Section title="Messages" id="messages">
        <LogSectionView runId={more} section="messages" first={log.sections.messages} dir={names} />
      </Section>
      {changeSet && (
        <Section title="Change-set" id="change-set">
          {shared ? <ChangeSetSummary cs={changeSet} /> : <ChangeSet runId={run.id} cs={changeSet} />}
        </Section>
      )}
      <Section title="Runner log" id="log">
        <LogSectionView runId={more} section="runner" first={log.sections.runner} dir={names} />
      </Section>
    </>
  );
}
