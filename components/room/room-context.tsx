"use client";

import { createContext, useContext } from "react";
import type { Ask, CommandName, Receipt, Run } from "@/lib/core/protocol";
import type { AnswerInput, AnswerResult } from "@/lib/browser/ask-api";

/** What a run panel needs from the room beyond its run: receipts, presence and the actions. */
export interface RoomActions {
  receipts: Record<string, Receipt[]>;
  presenceOf(run: Run): "online" | "unresponsive" | undefined;
  /** A person's command to a run ([RUN1]); a refusal is thrown as an ApiError. */
  send(runId: string, command: CommandName, text?: string): Promise<unknown>;
  forceFinish(runId: string): Promise<unknown>;
  /** False for a viewer: no buttons (the API refuses their commands anyway). */
  canAct: boolean;
  /** Run id → its asks ([ASK4]); a person's answer to one. */
  asks: Record<string, Ask[]>;
  answer(runId: string, askId: string, body: AnswerInput): Promise<AnswerResult>;
  /** A replay's clock (the time of the event it shows): expiries are judged by it, not by the wall clock. */
  replayAt?: number;
}

export const RoomActionsContext = createContext<RoomActions | null>(null);

export function useRoomActions(): RoomActions | null {
  return useContext(RoomActionsContext);
}
