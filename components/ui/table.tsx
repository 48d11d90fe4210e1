import type { HTMLAttributes, ReactNode, TdHTMLAttributes, ThHTMLAttributes } from "react";

const HEAD = "px-2 py-1.5 text-left text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
const CELL = "px-2 py-1.5 align-top";

/**
 * A data table: a caption for screen readers, one header row of `columns`, and the rows the
 * page draws with `Td` (a cell) and `Th` (a row's header). Rows are divided by a hairline.
 */
export function Table({
  caption,
  columns,
  children,
  className = "w-full text-sm",
  ...rest
}: Omit<HTMLAttributes<HTMLTableElement>, "children"> & {
  caption: string;
  columns: readonly ReactNode[];
  children: ReactNode;
  "data-testid"?: string;
}) {
  return (
    <table {...rest} className={className}>
      <caption className="sr-only">{caption}</caption>
      <thead className="border-b border-zinc-200 dark:border-zinc-800">
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col" className={HEAD}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-zinc-100 dark:divide-zinc-900">{children}</tbody>
    </table>
  );
}

export function Td({ className, ...rest }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td {...rest} className={className ? `${CELL} ${className}` : CELL} />;
}

/** A row's header: the first cell that names the row, as a column's header looks, or `plain` as a cell does. */
export function Th({
  plain = false,
  className,
  ...rest
}: ThHTMLAttributes<HTMLTableCellElement> & { plain?: boolean }) {
  const look = plain ? `${CELL} text-left font-normal` : HEAD;
  return <th scope="row" {...rest} className={className ? `${look} ${className}` : look} />;
}
