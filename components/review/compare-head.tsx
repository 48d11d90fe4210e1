import type { Run } from "@/lib/core/protocol";

/** A compare table's cells: headers and data. */
const th = "px-2 py-1.5 text-left text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
export const td = "px-2 py-1.5 align-top";

/** A compare table's head: what its rows are, then a column per run ("Run 1", "Run 2"…), then any columns after. */
export function RunColumns({ first, runs, after = [] }: { first: string; runs: Run[]; after?: string[] }) {
  return (
    <thead>
      <tr>
        <th scope="col" className={th}>
          {first}
        </th>
        {runs.map((r, i) => (
          <th key={r.id} scope="col" className={th}>
            Run {i + 1}
          </th>
        ))}
        {after.map((a) => (
          <th key={a} scope="col" className={th}>
            {a}
          </th>
        ))}
      </tr>
    </thead>
  );
}
