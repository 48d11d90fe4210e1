import type { Step } from "@/lib/core/protocol";

const LABEL: Record<Step["state"], string> = {
  pending: "pending",
  active: "in progress",
  done: "done",
  failed: "failed",
  skipped: "skipped",
};

const DOT: Record<Step["state"], string> = {
  pending: "border-2 border-zinc-400 bg-transparent dark:border-zinc-500",
  active: "border-2 border-blue-600 bg-blue-100 dot-pulse dark:border-blue-400 dark:bg-blue-950",
  done: "border-2 border-blue-600 bg-blue-600 dark:border-blue-400 dark:bg-blue-400",
  failed: "border-2 border-red-600 bg-red-600 dark:border-red-400 dark:bg-red-400",
  skipped: "border-2 border-zinc-400 bg-transparent dot-struck dark:border-zinc-500",
};

/**
 * One dot per plan step, in order, joined like a stepper ([UI1]): hollow pending, pulsing
 * ring active, filled done, red failed, struck skipped. Titles on hover and focus.
 */
export function PlanDots({ plan }: { plan: Step[] }) {
  if (!plan.length) return null;
  const active = plan.find((s) => s.state === "active");
  const done = plan.filter((s) => s.state === "done").length;
  return (
    <div className="mt-2">
      <ol className="flex flex-wrap items-center gap-y-2" aria-label={`Plan: ${done} of ${plan.length} steps done`}>
        {plan.map((s, i) => (
          <li key={s.step_id} className="flex items-center">
            {i > 0 && <span aria-hidden className="h-px w-3 bg-zinc-300 sm:w-5 dark:bg-zinc-700" />}
            <span
              tabIndex={0}
              role="img"
              data-step-id={s.step_id}
              data-state={s.state}
              aria-label={`${s.title} — ${LABEL[s.state]}`}
              title={`${s.title} — ${LABEL[s.state]}`}
              className={`group relative block h-3.5 w-3.5 rounded-full outline-offset-2 focus-visible:outline-2 focus-visible:outline-blue-600 ${DOT[s.state]}`}
            >
              <span
                role="presentation"
                className="pointer-events-none absolute bottom-5 left-1/2 z-10 hidden -translate-x-1/2 whitespace-nowrap rounded bg-zinc-900 px-2 py-1 text-xs text-white group-hover:block group-focus-visible:block dark:bg-zinc-100 dark:text-zinc-900"
              >
                {s.title}
              </span>
            </span>
          </li>
        ))}
      </ol>
      {active && (
        <p className="mt-1 truncate text-xs text-zinc-600 dark:text-zinc-400">
          <span className="sr-only">Current step: </span>
          {active.title}
        </p>
      )}
    </div>
  );
}
