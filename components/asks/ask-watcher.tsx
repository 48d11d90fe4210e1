"use client";

import { useEffect, useState } from "react";
import { askFeed } from "@/lib/browser/ask-feed";
import { notificationPermission } from "@/lib/browser/notifications";
import { clipUtf8 } from "@/lib/core/protocol";

/**
 * On every page of a workspace: a system notification for each new ask of the workspace
 * ([ASK4]), once the person allowed them (NotifyButton), also while the tab is in the
 * background. One per ask across tabs (the ask id is its tag); a click opens the ask in its room.
 */
export function AskWatcher({ workspaceId }: { workspaceId: string }) {
  const [live, setLive] = useState(false);
  useEffect(
    () =>
      askFeed.listen({
        status: setLive,
        event: (e) => {
          if (e.type !== "run.asked" || e.workspace_id !== workspaceId) return;
          void notificationPermission().then((permission) => {
            if (permission !== "granted") return;
            const title =
              e.kind === "permission" ? `An agent asks permission: ${e.tool}` : "An agent asks you a question";
            const n = new Notification(title, {
              body: clipUtf8((e.kind === "permission" ? e.summary : e.question) ?? "", 300),
              tag: e.ask_id,
            });
            n.onclick = () => {
              window.focus();
              window.location.assign(`/w/${workspaceId}/r/${e.space_id}#${e.ask_id}`);
            };
          });
        },
      }),
    [workspaceId],
  );
  // A hook for tests and tools: whether new asks reach this page now.
  return <span hidden data-testid="ask-watch" data-live={live} />;
}
