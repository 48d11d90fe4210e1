"use client";

import { useEffect, useState } from "react";
import { notificationPermission } from "@/lib/browser/notifications";

/**
 * Asks the browser, once and only when the person presses it, for permission to show system
 * notifications of new asks ([ASK4]); gone once they answered the browser's question.
 */
export function NotifyButton() {
  const [permission, setPermission] = useState<NotificationPermission | "unsupported" | null>(null);
  useEffect(() => void notificationPermission().then(setPermission), []);
  if (permission !== "default") return null;
  return (
    <button
      type="button"
      data-testid="notify-enable"
      onClick={() => void Notification.requestPermission().then(setPermission)}
      className="rounded-md border border-zinc-300 px-2.5 py-1 text-sm font-medium hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:hover:bg-zinc-800"
    >
      Notify me when an agent needs me
    </button>
  );
}
