/**
 * The same rules on every adapter: the official conformance suite, both revisions, no baseline,
 * against the fixture served through `createFetchHandler` on Node (behind `@hono/node-server`)
 * and through `createNodeHandler` in an Express 5 app (`conformance.test.ts` covers `serveHttp`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FixtureProcess,
  PRIMARY_NODE_RUN,
  runSuite,
  startFixture,
  summary,
} from './test-support/fixture-process.js';

const SUITE_TIMEOUT_MS = 240_000;

if (!PRIMARY_NODE_RUN)
  console.warn(
    `SKIPPED: conformance through adapters runs on the Node 20 pass only (this is ${process.version})`,
  );

for (const adapter of ['fetch', 'express'] as const) {
  describe.runIf(PRIMARY_NODE_RUN)(`official conformance suite through the ${adapter} adapter`, () => {
    let fixture: FixtureProcess;
    beforeAll(async () => {
      fixture = await startFixture(adapter);
    }, 30_000);
    afterAll(() => fixture?.stop());

    for (const revision of ['2025-11-25', '2026-07-28']) {
      it(
        `passes --requirements ${revision} with no baseline`,
        async () => {
          const { code, output } = await runSuite(fixture.url, ['--requirements', revision]);
          expect(output).toContain('=== SUMMARY ===');
          expect(code, summary(output)).toBe(0);
        },
        SUITE_TIMEOUT_MS,
      );
    }
  });
}
