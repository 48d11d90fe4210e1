import type { AskRollupBy, AskRollupRow } from "@/lib/core/review/asks";
import { askRollupLabel } from "@/lib/core/review/rollups";
import type { RollupsData } from "@/lib/core/views/review-pages";
import { Table, Td } from "../ui/table";
import { callTime, muted } from "./format";

const heading = "mt-8 text-sm font-semibold uppercase tracking-wide text-zinc-700 dark:text-zinc-300";
const TITLE: Record<AskRollupBy, string> = { person: "Per person who answered", agent: "Per agent that asked" };

const ms = (n: number | null) => (n === null ? "—" : callTime(n));
const pct = (n: number | null) => (n === null ? "—" : `${(n * 100).toFixed(1)}%`);

function AskTable({ by, rows, label }: { by: AskRollupBy; rows: AskRollupRow[]; label: (k: string | null) => string }) {
  return (
    <Table
      caption={`Time to answer, ${TITLE[by].toLowerCase()}`}
      className="mt-2 w-full text-sm tabular-nums"
      data-testid="ask-rollup"
      data-by={by}
      columns={[by, "asks", "answered", "denied", "expired", "median wait", "p90 wait"]}
    >
      {rows.map((r) => (
        <tr
          key={r.key ?? ""}
          data-testid="ask-rollup-row"
          data-key={r.key ?? ""}
          data-count={r.count}
          data-answered={r.answered}
          data-expired={r.expired}
          data-p50-ms={r.p50_ms ?? ""}
          data-p90-ms={r.p90_ms ?? ""}
        >
          <Td>{label(r.key)}</Td>
          <Td>{r.count}</Td>
          <Td>{r.answered}</Td>
          <Td>{r.denied}</Td>
          <Td>
            {r.expired} ({pct(r.expired_share)})
          </Td>
          <Td>{ms(r.p50_ms)}</Td>
          <Td>{ms(r.p90_ms)}</Td>
        </tr>
      ))}
    </Table>
  );
}

/**
 * Time to answer ([ASKR6]): the range's asks per person who answered and per agent of the
 * asking run — how many, answered, denied, expired (and its share), median and p90 wait.
 */
export function AskRollups({ d }: { d: RollupsData }) {
  const { rows, asks, capped } = d.asks;
  return (
    <section aria-labelledby="ask-rollups" data-testid="ask-rollups">
      <h2 id="ask-rollups" className={heading}>
        Asks: time to answer
      </h2>
      {asks === 0 ? (
        <p className={`mt-2 text-sm ${muted}`}>No asks in this span.</p>
      ) : (
        <>
          <p className={`mt-1 text-xs ${muted}`}>
            {asks.toLocaleString("en-US")} asks{capped ? " (the newest; older ones are left out)" : ""}. A wait is from
            the ask to the first answer.
          </p>
          {(["person", "agent"] as const).map((by) => (
            <div key={by} className="mt-4 overflow-x-auto">
              <h3 className="text-sm font-medium">{TITLE[by]}</h3>
              <AskTable by={by} rows={rows[by]} label={(k) => askRollupLabel(by, k, d.names)} />
            </div>
          ))}
        </>
      )}
    </section>
  );
}
