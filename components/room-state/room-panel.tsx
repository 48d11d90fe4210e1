"use client";

import type { ReactNode } from "react";
import { Button } from "../ui/button";

/**
 * The room's state beside its timeline (docs/PROTOCOL.md §6): intent and outcome, and the sections
 * later steps add. Opened from the header; on a narrow screen it covers the timeline.
 */
export function RoomPanel({ onClose, children }: { onClose: () => void; children: ReactNode }) {
  return (
    <aside
      data-testid="room-panel"
      aria-label="Room state"
      className="absolute inset-0 z-20 overflow-y-auto bg-white p-4 lg:static lg:w-[28rem] lg:shrink-0 lg:border-l lg:border-zinc-200 dark:bg-zinc-950 lg:dark:border-zinc-800"
    >
      <div className="mb-3 flex items-center">
        <h2 className="text-sm font-semibold">Room state</h2>
        <Button tone="ghost" data-testid="room-panel-close" onClick={onClose} className="ml-auto">
          Close
        </Button>
      </div>
      <div className="space-y-6">{children}</div>
    </aside>
  );
}
