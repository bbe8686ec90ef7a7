/**
 * The built runs page (dist/ui/runs.html, made by ui/build.mjs), read once. The same file is the
 * MCP App `ui://agentd/runs` and the dashboard at /ui/ on every HTTP listener.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The MCP App's URI. */
export const RUNS_APP_URI = 'ui://agentd/runs';

export interface RunsPage {
  readonly html: string;
  /** The dashboard's Content-Security-Policy: only the page's own inline script and style, fetches to its own origin. */
  readonly csp: string;
}

// From src/ui/ and from dist/ui/ alike, two levels up is the package root.
const PAGE_FILE = fileURLToPath(new URL('../../dist/ui/runs.html', import.meta.url));

let cached: RunsPage | null | undefined;

function hashOf(html: string, tag: 'script' | 'style'): string {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html);
  const digest = createHash('sha256')
    .update(match?.[1] ?? '')
    .digest('base64');
  return `'sha256-${digest}'`;
}

/** The page, or undefined when the package was built without it (tsc alone): agentd then serves no UI. */
export function runsPage(): RunsPage | undefined {
  if (cached === undefined) {
    try {
      const html = readFileSync(PAGE_FILE, 'utf8');
      const csp = [
        "default-src 'none'",
        `script-src ${hashOf(html, 'script')}`,
        `style-src ${hashOf(html, 'style')}`,
        "connect-src 'self'",
        "img-src 'self' data:",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join('; ');
      cached = { html, csp };
    } catch {
      cached = null;
    }
  }
  return cached ?? undefined;
}
