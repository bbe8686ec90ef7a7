/** How the page says times: a run's duration, a time of day, a date and time (for runs of other days). */

/** `42s`, `3m 5s`, `2h 10m`: from `startedAt` to `endedAt` (or `now` while it runs). */
export function durationWords(startedAt: string, endedAt: string | undefined, now: number): string {
  const end = endedAt === undefined ? now : Date.parse(endedAt);
  const seconds = Math.max(0, Math.round((end - Date.parse(startedAt)) / 1000));
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

export const clock = (iso: string) => new Date(iso).toLocaleTimeString([], { hour12: false });

/** `2026-12-07 07:30:12` in local time: stored runs may be days old. */
export function dateTime(iso: string): string {
  const at = new Date(iso);
  if (!Number.isFinite(at.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}
