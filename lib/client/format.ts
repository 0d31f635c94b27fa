/** Small display formatters shared by the chat UI. */

export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 && unit > 0 ? 1 : 0)} ${units[unit]}`;
}

export type DateGroup = "Today" | "Yesterday" | "Previous 7 days" | "Previous 30 days" | "Older";

/** The sidebar section a conversation falls in, by its last update. */
export function dateGroup(timestamp: number, now = Date.now()): DateGroup {
  const startOfToday = new Date(now);
  startOfToday.setHours(0, 0, 0, 0);
  const day = 86_400_000;
  const today = startOfToday.getTime();
  if (timestamp >= today) return "Today";
  if (timestamp >= today - day) return "Yesterday";
  if (timestamp >= today - 7 * day) return "Previous 7 days";
  if (timestamp >= today - 30 * day) return "Previous 30 days";
  return "Older";
}
