"use client";

import { useEffect, useState } from "react";
import { notificationPermission } from "@/lib/browser/notifications";
import { Button } from "../ui/button";

/**
 * Asks the browser, once and only when the person presses it, for permission to show system
 * notifications of new asks ([ASK4]); gone once they answered the browser's question.
 */
export function NotifyButton() {
  const [permission, setPermission] = useState<NotificationPermission | "unsupported" | null>(null);
  useEffect(() => void notificationPermission().then(setPermission), []);
  if (permission !== "default") return null;
  return (
    <Button data-testid="notify-enable" onClick={() => void Notification.requestPermission().then(setPermission)}>
      Notify me when an agent needs me
    </Button>
  );
}
