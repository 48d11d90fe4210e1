import type { Server } from "socket.io";
import { appendSystem } from "../commands";
import { log } from "../log";
import type { ChipsServices } from "../services";
import { workspaceRoom } from "./person-socket";
import { RawJson, type OutFrame } from "./raw";

const ASK_EVENTS = new Set(["run.asked", "run.ask_shown", "run.answered", "run.answer_applied", "run.ask_closed"]);

/**
 * Asks reach people wherever they are in the workspace ([ASK4]): every ask event goes to the
 * workspace's people sockets on this node as `ask` (the inbox and the notifications follow
 * it, on any page), and an ask pushed to at least one person's open page is marked shown
 * (`run.ask_shown{via: browser}`; when several nodes do, the writer keeps the first).
 */
export function askFanout(io: Server, svc: ChipsServices) {
  /** Shown once: a refusal means another node (or an answer) came first. */
  async function shown(e: { workspace_id: string; run_id: string; ask_id: string }) {
    const r = await appendSystem(svc, e.workspace_id, {
      type: "run.ask_shown",
      run_id: e.run_id,
      ask_id: e.ask_id,
      via: "browser",
    } as never);
    if (!r.ok && r.problem.code !== "invalid_transition" && r.problem.code !== "run_finished")
      log.warn({ askId: e.ask_id, problem: r.problem }, "ask not marked shown");
  }
  return (frames: OutFrame[]) => {
    for (const f of frames) {
      if (!ASK_EVENTS.has(f.type)) continue;
      const e = JSON.parse(f.json) as { workspace_id: string; run_id: string; ask_id: string };
      const room = workspaceRoom(e.workspace_id);
      if (!io.sockets.adapter.rooms.has(room)) continue; // nobody of the workspace on this node
      io.to(room).emit("ask", new RawJson(f.json));
      if (f.type === "run.asked") void shown(e).catch((err) => svc.storage.refuse(err, "marking an ask shown"));
    }
  };
}
