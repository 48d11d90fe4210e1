import { ev, request, type Workspace } from "./api";
import type { Intent } from "./intents";

type Of<T extends Intent["t"]> = Extract<Intent, { t: T }>;

/**
 * The room in the property test's sequences, beside its runs: its intent and outcome saved
 * at the next revision (or at a stale one, which must be refused 409 — [ROOM1]), decisions
 * recorded, superseded and withdrawn ([DEC1]), and messages. What the world expects the
 * room to hold afterwards: `revision` and which decisions are still active.
 */
export class RoomWorld {
  /** The room's revision as the world saved it ([ROOM1]). */
  revision = 0;
  /** Decision id → whether it is still active. */
  readonly decisions = new Map<string, boolean>();

  constructor(
    private server: { url: string },
    private ws: Workspace,
    /** Post an event as the harness or the person (it must be stored). */
    private post: (by: "harness" | "person", event: Record<string, unknown>) => Promise<void>,
  ) {}

  async save(i: Of<"room">): Promise<void> {
    const revision = i.stale && this.revision > 0 ? this.revision : this.revision + 1;
    const sent = {
      ...ev(this.ws, "room.updated", { space_id: this.ws.space_id, revision }),
      actor: undefined,
    } as Record<string, unknown>;
    if (i.intent !== undefined) sent.intent = i.intent;
    if (i.outcome !== undefined) sent.outcome = i.outcome;
    const r = await request(`${this.server.url}/api/v1/events`, {
      method: "POST",
      token: this.ws.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sent),
    });
    if (revision === this.revision + 1 ? r.status !== 201 : r.status !== 409)
      throw new Error(`room.updated r${revision} answered ${r.status}: ${r.text}`);
    if (r.status === 201) this.revision = revision;
  }

  async decide(i: Of<"decide">): Promise<void> {
    const active = [...this.decisions].filter(([, a]) => a).map(([id]) => id);
    const target = active.length ? active[i.pick % active.length] : undefined;
    if (i.how !== "new" && !target) return;
    const id = i.how === "withdraw" ? target! : `dec-${this.decisions.size}`;
    await this.post("person", {
      ...ev(this.ws, "decision.recorded", {
        space_id: this.ws.space_id,
        decision_id: id,
        title: `Decision ${id}`,
        text: "Because we said so.",
        status: i.how === "withdraw" ? "superseded" : "active",
        ...(i.how === "supersede" ? { supersedes: target } : {}),
      }),
      actor: undefined,
    });
    if (i.how !== "new") this.decisions.set(target!, false);
    if (i.how !== "withdraw") this.decisions.set(id, true);
  }

  async message(i: Of<"message">): Promise<void> {
    if (!i.text) return;
    await this.post("harness", ev(this.ws, "message.posted", { space_id: this.ws.space_id, text: i.text }));
  }
}
