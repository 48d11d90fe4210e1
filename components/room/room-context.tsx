"use client";

import { createContext, useContext } from "react";
import type { Receipt, Run } from "@/lib/core/protocol";
import type { SendCommand } from "./run-controls";

/** What a run panel needs from the room beyond its run: receipts, presence and the actions. */
export interface RoomActions {
  receipts: Record<string, Receipt[]>;
  presenceOf(run: Run): "online" | "unresponsive" | undefined;
  send: SendCommand;
  forceFinish(runId: string): Promise<string | null>;
  /** False for a viewer: no buttons (the API refuses their commands anyway). */
  canAct: boolean;
}

export const RoomActionsContext = createContext<RoomActions | null>(null);

export function useRoomActions(): RoomActions | null {
  return useContext(RoomActionsContext);
}
