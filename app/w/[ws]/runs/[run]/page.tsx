import Link from "next/link";
import { notFound } from "next/navigation";
import { runPage } from "@/lib/pages/review";
import { commandAudit, planVsActual, stepBars } from "@/lib/review/run-story";
import { agentOf, durationMs } from "@/lib/review/facets";
import { ChangeSetPayload } from "@/lib/runner";
import { ChangeSet } from "@/components/room/change-set";
import { actorName, runHarnessName } from "@/components/room/names";
import { ReviewNav } from "@/components/review/review-nav";
import { StepGantt } from "@/components/review/step-gantt";
import { PlanVsActual } from "@/components/review/plan-vs-actual";
import { CommandAuditTable } from "@/components/review/command-audit";
import { Annotations } from "@/components/review/annotations";
import { Messages, RunnerLog, StatusHistory } from "@/components/review/run-record";
import { link, muted, STATUS_TONE, statusText, took, tokens, usd, when } from "@/components/review/format";

export const dynamic = "force-dynamic";

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

/** One run, looked back on: who asked for what, the plan in time and against what happened, statuses, messages, commands, changes, usage. */
export default async function RunReviewPage({ params }: { params: Promise<{ ws: string; run: string }> }) {
  const { ws, run: runId } = await params;
  const d = await runPage(ws, runId);
  if (!d) notFound();
  const { run, events, receipts, names } = d;
  const status = statusText(run);
  const queued = events.find((e) => e.type === "run.queued");
  const askedBy = queued ? actorName(names, queued.actor) : run.goal_from === "harness" ? `a person at ${runHarnessName(names, run)}` : null;
  const bars = stepBars(run, receipts, d.now);
  const from = run.started_at ?? run.created_at;
  const to = run.finished_at ?? d.now;
  const changeSet = run.change_set ? ChangeSetPayload.safeParse(run.change_set).data : undefined;
  const agent = agentOf(run);
  const dt = "text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
  return (
    <main className="mx-auto max-w-5xl px-6 py-8" data-testid="run-page" data-run-id={run.id}>
      <ReviewNav ws={ws} here="run">
        <Link className={link} href={`/w/${ws}/r/${run.space_id}`}>
          # {names.rooms[run.space_id] ?? "room"}
        </Link>
        <Link className={link} href={`/w/${ws}/runs/${run.id}/replay`} data-testid="run-replay-link">
          Replay
        </Link>
        <a className={link} href={`/api/v1/runs/${run.id}/export?format=json`} download>
          Export (JSON)
        </a>
        <a className={link} href={`/api/v1/runs/${run.id}/export?format=ndjson`} download>
          NDJSON
        </a>
      </ReviewNav>
      <div className="mt-4 flex flex-wrap items-center gap-2">
        <span data-testid="run-status" className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_TONE[status] ?? ""}`}>
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
            {run.usage ? `${tokens(run.usage.input_tokens)} in · ${tokens(run.usage.output_tokens)} out${run.usage.cached_input_tokens ? ` · ${tokens(run.usage.cached_input_tokens)} cached` : ""} · ${usd(run.usage.cost_usd ?? null)}` : "not reported"}
          </dd>
        </div>
        {run.request && (
          <div className="col-span-2">
            <dt className={dt}>Asked of the runner</dt>
            <dd>
              {run.request.repository} @ {run.request.base_branch} · {run.request.profile}
              {run.request.required_commands.length > 0 && <span className={muted}> · checks: {run.request.required_commands.join(", ")}</span>}
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
      <Section title="Review" id="review">
        <Annotations runId={run.id} events={events} dir={names} files={changeSet?.files.map((f) => f.path) ?? []} canAct={d.canAct} />
      </Section>
      <Section title="Plan timeline" id="gantt">
        <StepGantt bars={bars} from={from} to={to} />
      </Section>
      <Section title="Plan vs what happened" id="plan">
        <PlanVsActual lines={planVsActual(run, events)} />
      </Section>
      <Section title="Commands" id="audit">
        <CommandAuditTable audit={commandAudit(receipts, events)} dir={names} />
      </Section>
      <Section title="Status history" id="statuses">
        <StatusHistory events={events} dir={names} />
      </Section>
      <Section title="Messages" id="messages">
        <Messages events={events} dir={names} />
      </Section>
      {changeSet && (
        <Section title="Change-set" id="change-set">
          <ChangeSet runId={run.id} cs={changeSet} />
        </Section>
      )}
      <Section title="Runner log" id="log">
        <RunnerLog events={events} />
      </Section>
    </main>
  );
}
