/** Screenshots of agentd's UI tests go to apps/agentd/test-output/ (gitignored) for a reviewer to look at. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const SHOTS = fileURLToPath(new URL('../../test-output', import.meta.url));

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}
