import { ROOM_EVENTS } from "@/lib/core/protocol";
import { markShown } from "../asks";
import type { ChipsServices } from "../services";
import { workspaceRoom } from "./person-socket";
import { RawJson, type OutFrame } from "./raw";
import type { ChipsServer } from "./wire";

const ASK_EVENTS = new Set(["run.asked", "run.ask_shown", "run.answered", "run.answer_applied", "run.ask_closed"]);

/**
 * Asks reach people wherever they are in the workspace ([ASK4]): every ask event goes to the
 * workspace's people sockets on this node as `ask` (the inbox and the notifications follow
 * it, on any page), and an ask pushed to at least one person's open page is marked shown
 * (`run.ask_shown{via: browser}`; when several nodes do, the writer keeps the first).
 */
export function askFanout(io: ChipsServer, svc: Pick<ChipsServices, "storage" | "writer">) {
  return (frames: OutFrame[]) => {
    for (const f of frames) {
      if (!ASK_EVENTS.has(f.type)) continue;
      const e = JSON.parse(f.json) as { workspace_id: string; run_id: string; ask_id: string };
      const room = workspaceRoom(e.workspace_id);
      if (!io.sockets.adapter.rooms.has(room)) continue; // nobody of the workspace on this node
      io.to(room).emit(ROOM_EVENTS.ask, new RawJson(f.json));
      if (f.type === "run.asked")
        void markShown(svc, e, "browser").catch((err) => svc.storage.refuse(err, "marking an ask shown"));
    }
  };
}
