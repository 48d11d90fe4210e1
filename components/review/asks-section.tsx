import Link from "next/link";
import { DEFAULT_PERMISSION_OPTIONS, type Ask } from "@/lib/core/protocol";
import { answerLabel, expiredText } from "@/lib/core/projection/asks";
import { askEnd, askTally, waitMs, type AskTally } from "@/lib/core/review/asks";
import { actorName, type Directory } from "@/lib/core/views/names";
import { callTime, link, muted } from "./format";

/** A time to the second (UTC): asks are answered in seconds, not minutes. */
const at = (iso: string | null) => (iso ? iso.slice(0, 19).replace("T", " ") : "—");

const CLOSED: Record<string, string> = {
  expired: "Expired: nobody answered in time",
  answered_elsewhere: "Answered at the agent",
  run_finished: "Closed: the run finished first",
  cancelled: "Withdrawn by the agent",
};

const END_TONE: Record<string, string> = {
  answered: "text-green-800 dark:text-green-300",
  denied: "text-red-700 dark:text-red-400",
  expired: "text-amber-800 dark:text-amber-300",
  withdrawn: muted,
  waiting: "text-blue-700 dark:text-blue-400",
};

/** "3 asks · 2 answered (1 denied) · 1 expired · median wait 12 s": a run's or a group's asks in one line. */
function askTallyText(t: AskTally): string {
  const parts = [`${t.count} ${t.count === 1 ? "ask" : "asks"}`];
  if (t.answered) parts.push(`${t.answered} answered${t.denied ? ` (${t.denied} denied)` : ""}`);
  if (t.expired) parts.push(`${t.expired} expired`);
  if (t.withdrawn) parts.push(`${t.withdrawn} withdrawn`);
  if (t.waiting) parts.push(`${t.waiting} waiting`);
  if (t.p50_ms !== null) parts.push(`median wait ${callTime(t.p50_ms)}`);
  return parts.join(" · ");
}

/** What the answer said and, for "for this run", what it covers. */
function answered(ask: Ask, dir: Directory) {
  const a = ask.answer!;
  return (
    <>
      <span className="font-medium" data-testid="review-ask-person">
        {dir.persons[a.person_id] ?? "someone"}
      </span>{" "}
      answered <strong data-testid="review-ask-answer">{answerLabel(ask)}</strong>
      {a.decision === "allow_for_run" && a.scope && (
        <>
          {" "}
          (covers <code className="font-mono text-xs">{a.scope}</code> for the rest of the run)
        </>
      )}{" "}
      at <time dateTime={a.at}>{at(a.at)}</time>, after{" "}
      <span className="tabular-nums" data-testid="review-ask-wait">
        {callTime(waitMs(ask)!)}
      </span>
      {a.note && <span className="block text-xs">Note: “{a.note}”</span>}
    </>
  );
}

/** The receipts: asked → shown → answered → applied | rejected, or → closed; each with its seq and time. */
function Receipts({ ask }: { ask: Ask }) {
  const steps: string[] = [`asked #${ask.seq} ${at(ask.created_at)}`];
  if (ask.shown_at) steps.push(`shown via ${ask.shown_via} ${at(ask.shown_at)}`);
  if (ask.answer) steps.push(`answered #${ask.answer.seq} ${at(ask.answer.at)}`);
  if (ask.state === "applied") steps.push(`applied #${ask.settled_seq} ${at(ask.settled_at)}`);
  if (ask.state === "rejected")
    steps.push(`not applied${ask.settled_seq ? ` #${ask.settled_seq}` : ""}: ${ask.reason ?? "rejected"}`);
  if (ask.state === "closed") steps.push(`closed #${ask.settled_seq} ${at(ask.settled_at)}`);
  if (ask.state === "answered") steps.push("the agent has not said it applied it");
  return (
    <p className={`text-xs ${muted}`} data-testid="review-ask-receipts" data-receipt={ask.state}>
      {steps.join(" → ")}
    </p>
  );
}

function AskRow({ ask, dir, replay }: { ask: Ask; dir: Directory; replay: string | null }) {
  const r = ask.request;
  const end = askEnd(ask);
  const options = r.kind === "permission" ? (r.options?.length ? r.options : DEFAULT_PERMISSION_OPTIONS) : r.options;
  return (
    <li
      className="py-2"
      data-testid="review-ask"
      data-ask-id={ask.ask_id}
      data-kind={r.kind}
      data-end={end}
      data-seq={ask.seq}
      data-wait-ms={waitMs(ask) ?? ""}
    >
      <p className="flex min-w-0 flex-wrap items-baseline gap-x-2 text-sm">
        <span className="rounded bg-zinc-100 px-1.5 text-xs dark:bg-zinc-800">{r.kind}</span>
        {r.kind === "permission" ? (
          <>
            <code className="font-mono text-xs">{r.tool}</code>
            <span className="min-w-0 break-words" data-testid="review-ask-what">
              {r.summary}
            </span>
          </>
        ) : (
          <span className="min-w-0 whitespace-pre-wrap break-words" data-testid="review-ask-what">
            {r.question}
          </span>
        )}
        <span className={`text-xs ${muted}`}>
          asked by {actorName(dir, ask.actor)}
          {r.source ? ` (${r.source})` : ""}
        </span>
      </p>
      {r.kind === "permission" && r.command && r.command !== r.summary && (
        <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-words rounded bg-zinc-50 p-2 font-mono text-xs dark:bg-zinc-900">
          {r.command}
        </pre>
      )}
      {options?.length ? (
        <p className={`text-xs ${muted}`}>
          Options: {options.map((o) => (o.id === ask.answer?.option_id ? `[${o.label}]` : o.label)).join(" · ")}
          {r.kind === "question" && r.free_text ? " · or a typed answer" : ""}
        </p>
      ) : null}
      <p className={`text-sm ${END_TONE[end]}`} data-testid="review-ask-outcome">
        {ask.answer ? (
          answered(ask, dir)
        ) : ask.state === "closed" ? (
          <>
            {CLOSED[ask.closed_reason ?? ""] ?? ask.closed_reason} at{" "}
            <time dateTime={ask.settled_at ?? undefined}>{at(ask.settled_at)}</time>
            {ask.closed_reason === "expired" ? (
              <> — {expiredText(ask)}</>
            ) : (
              ask.applied_default && <> — the agent’s default applied: {ask.applied_default}</>
            )}
            {ask.reason && <span className="block text-xs">“{ask.reason}”</span>}
          </>
        ) : (
          <>Waiting for a person since {at(ask.created_at)}</>
        )}
      </p>
      <Receipts ask={ask} />
      {replay && (
        <Link className={`text-xs ${link}`} href={`${replay}?seq=${ask.seq}`} data-testid="review-ask-replay">
          See it in the replay (#{ask.seq})
        </Link>
      )}
    </li>
  );
}

/**
 * The run page's asks ([ASKR1]): each request with what it offered, who answered what and
 * when, how long it waited, or how it closed (expired with the agent's default, withdrawn);
 * its receipts; and a link to the replay at its seq, its place in the run's log.
 */
export function AsksSection({ asks, dir, replay }: { asks: Ask[]; dir: Directory; replay: string | null }) {
  if (!asks.length) return <p className={`text-sm ${muted}`}>No asks on record.</p>;
  const t = askTally(asks);
  return (
    <div>
      <p
        className={`text-xs ${muted}`}
        data-testid="asks-total"
        data-count={t.count}
        data-answered={t.answered}
        data-denied={t.denied}
        data-expired={t.expired}
      >
        {askTallyText(t)}
        {t.p90_ms !== null && t.answered > 1 ? ` · p90 ${callTime(t.p90_ms)}` : ""}
      </p>
      <ol className="mt-1 divide-y divide-zinc-100 dark:divide-zinc-900">
        {asks.map((a) => (
          <AskRow key={a.ask_id} ask={a} dir={dir} replay={replay} />
        ))}
      </ol>
    </div>
  );
}
