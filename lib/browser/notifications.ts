/**
 * Whether this browser shows system notifications for the page: the Permissions API's word
 * where there is one (it also reflects a permission granted by policy or automation, which
 * `Notification.permission` of some headless browsers does not), else `Notification.permission`.
 */
export async function notificationPermission(): Promise<NotificationPermission | "unsupported"> {
  if (typeof window === "undefined" || !("Notification" in window)) return "unsupported";
  try {
    const s = await navigator.permissions.query({ name: "notifications" });
    return s.state === "prompt" ? "default" : s.state;
  } catch {
    return Notification.permission;
  }
}
