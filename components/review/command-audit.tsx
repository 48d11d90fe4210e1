import type { Directory } from "@/lib/core/views/names";
import type { CommandAudit } from "@/lib/core/review/run-story";
import { Table, Td } from "../ui/table";
import { muted, took, when } from "./format";

/**
 * Every command to the run: who pressed it and when, how long until the harness had it and
 * until it answered, the answer and its reason, and what the run did in between (by seq).
 */
export function CommandAuditTable({ audit, dir }: { audit: CommandAudit[]; dir: Directory }) {
  if (!audit.length) return <p className={`text-sm ${muted}`}>Nobody sent this run a command.</p>;
  return (
    <Table caption="Commands" columns={["Command", "By · at", "To delivered", "To answer", "Answer", "Meanwhile"]}>
      {audit.map(({ receipt: r, to_delivered_ms, to_answer_ms, between }) => (
        <tr
          key={r.command_id}
          data-testid="audit-row"
          data-command-id={r.command_id}
          data-receipt={r.receipt}
          data-to-delivered-ms={to_delivered_ms ?? ""}
          data-to-answer-ms={to_answer_ms ?? ""}
        >
          <Td>
            <span className="font-medium">{r.command}</span>
            {r.text && <q className="ml-1 italic">{r.text}</q>}
          </Td>
          <Td>
            {dir.persons[r.person_id] ?? "someone"} · <span className="tabular-nums">{when(r.created_at)}</span>
          </Td>
          <Td className="tabular-nums">{took(to_delivered_ms)}</Td>
          <Td className="tabular-nums">{took(to_answer_ms)}</Td>
          <Td>
            <span
              className={
                r.receipt === "applied"
                  ? "text-green-800 dark:text-green-300"
                  : r.receipt === "rejected"
                    ? "text-red-800 dark:text-red-300"
                    : ""
              }
            >
              {r.receipt}
            </span>
            {r.reason && <span className={`block text-xs ${muted}`}>{r.reason}</span>}
          </Td>
          <Td className="text-xs">
            {between.count === 0 ? (
              <span className={muted}>nothing</span>
            ) : (
              <details>
                <summary className="cursor-pointer">
                  {between.count} {between.count === 1 ? "event" : "events"} from seq {between.events[0]?.seq}
                </summary>
                <ul className="mt-1 space-y-0.5">
                  {between.events.map((b) => (
                    <li key={b.seq}>
                      <span className="tabular-nums">#{b.seq}</span> <span className={muted}>{b.type}</span> {b.label}
                    </li>
                  ))}
                  {between.count > between.events.length && (
                    <li className={muted}>and {between.count - between.events.length} more</li>
                  )}
                </ul>
              </details>
            )}
          </Td>
        </tr>
      ))}
    </Table>
  );
}
