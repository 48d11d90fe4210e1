import type { ReactNode } from "react";

/** What went wrong, said once: a form's refusal no field shows, Chips unreachable, a page's bad query. Nothing when empty. */
export function Alert({
  children,
  id,
  testId,
  className = "text-sm",
}: {
  children: ReactNode;
  id?: string;
  testId?: string;
  className?: string;
}) {
  if (!children) return null;
  return (
    <p role="alert" id={id} data-testid={testId} className={`${className} text-red-700 dark:text-red-400`}>
      {children}
    </p>
  );
}
