import fc from "fast-check";
import { key, request, type Workspace } from "./api";

/**
 * Tasks in the property test's sequences ([TSK1]–[TSK3]): a task made (after an earlier one,
 * or not) or edited (its prompt changed or kept), and a task started — which the world expects
 * to be queued, or refused `409 prerequisites_unmet` naming exactly the prerequisites whose
 * newest run has not succeeded. Write scopes are one folder per task, so no start overlaps.
 */
export const taskIntents = {
  save: fc.record({
    t: fc.constant("task" as const),
    pick: fc.nat(5),
    edit: fc.boolean(),
    prompt: fc.constantFrom("Do it", "Do it well"),
    after: fc.boolean(),
  }),
  start: fc.record({ t: fc.constant("task-start" as const), pick: fc.nat(5) }),
};
type SaveIntent = typeof taskIntents.save extends fc.Arbitrary<infer T> ? T : never;
type StartIntent = typeof taskIntents.start extends fc.Arbitrary<infer T> ? T : never;

interface TaskSlot {
  id: string;
  prerequisites: string[];
  /** The runs its starts queued, oldest first. */
  runs: string[];
}

export class TaskWorld {
  readonly tasks: TaskSlot[] = [];

  constructor(
    private server: { url: string },
    private ws: Workspace,
  ) {}

  private send(method: string, path: string, body: unknown) {
    return request(`${this.server.url}/api/v1/spaces/${this.ws.space_id}/tasks${path}`, {
      method,
      token: this.ws.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  async save(i: SaveIntent): Promise<void> {
    const known = this.tasks.length ? this.tasks[i.pick % this.tasks.length] : undefined;
    const editing = i.edit ? known : undefined;
    const n = editing ? this.tasks.indexOf(editing) : this.tasks.length;
    const prerequisites = editing ? editing.prerequisites : i.after && known ? [known.id] : [];
    const body = {
      title: `Task ${n}`,
      prompt: i.prompt,
      repository: "demo",
      write_scope: [`t${n}/**`],
      prerequisites,
      idempotency_key: key(),
    };
    const r = await this.send(editing ? "PUT" : "POST", editing ? `/${editing.id}` : "", body);
    if (r.status !== 201) throw new Error(`task save answered ${r.status}: ${r.text}`);
    if (!editing) this.tasks.push({ id: r.body.task_id, prerequisites, runs: [] });
  }

  /** Start a task; the run it queued, or null when it was (rightly) refused. */
  async start(i: StartIntent, succeeded: (runId: string) => boolean): Promise<string | null> {
    if (!this.tasks.length) return null;
    const task = this.tasks[i.pick % this.tasks.length];
    const unmet = task.prerequisites.filter((p) => {
      const newest = this.tasks.find((t) => t.id === p)!.runs.at(-1);
      return !newest || !succeeded(newest);
    });
    const r = await this.send("POST", `/${task.id}/start`, { idempotency_key: key() });
    if (unmet.length) {
      if (r.status !== 409 || r.body.code !== "prerequisites_unmet" || r.body.unmet.join() !== unmet.join())
        throw new Error(`a start with unmet ${unmet.join()} answered ${r.status}: ${r.text}`);
      return null;
    }
    if (r.status !== 201) throw new Error(`a ready task's start answered ${r.status}: ${r.text}`);
    task.runs.push(r.body.run_id);
    return r.body.run_id;
  }
}
