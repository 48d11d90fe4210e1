import type { Budget, BudgetsAnswer } from "@/lib/protocol";

/** The workspace's budgets with their spend now ([BUD2]), for the room page; null when they could not be read. */
export async function fetchBudgets(workspaceId: string): Promise<Budget[] | null> {
  const res = await fetch(`/api/v1/workspaces/${workspaceId}/budgets`).catch(() => null);
  if (!res?.ok) return null;
  return ((await res.json()) as BudgetsAnswer).budgets;
}
