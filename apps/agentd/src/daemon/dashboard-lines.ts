/** The start-up lines that say where the dashboard is and how a browser signs in to it. */
import type { Listener } from './serve-targets.js';

export function dashboardLines(listeners: readonly Listener[]): string {
  const urls = [...new Set(listeners.flatMap((l) => (l.dashboard === undefined ? [] : [l.dashboard])))];
  if (urls.length === 0) return '';
  return `dashboard: ${urls.join(' ')} (sign in as this machine's user: agentd ui --open)\n`;
}
