/** The POST Accept rule over real HTTP: look-alike media types are refused, wildcards pass. */
import { describe, expect, it } from 'vitest';
import { modernPost, startHarness } from './test-support/harness.js';

describe('Accept over real HTTP', () => {
  it('406 for look-alike types, 200 for wildcards', async () => {
    const h = await startHarness();
    try {
      const lookAlike = await modernPost(
        h.url,
        'tools/list',
        {},
        {
          headers: { accept: 'application/jsonx, text/event-streamy' },
        },
      );
      expect(lookAlike.status).toBe(406);
      expect(await lookAlike.json()).toMatchObject({ error: { code: -32600 } });
      const wild = await modernPost(
        h.url,
        'tools/list',
        {},
        { headers: { accept: 'Application/*;q=0.9, text/*' } },
      );
      expect(wild.status).toBe(200);
      await wild.text();
    } finally {
      await h.close();
    }
  });
});
