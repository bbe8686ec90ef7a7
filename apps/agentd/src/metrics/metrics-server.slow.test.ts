/** The metrics listener over real loopback HTTP: bearer tokens when the address is not loopback, methods, paths. */
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type MetricsServer, serveMetrics } from './metrics-server.js';

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TOKEN = 'scrape-token-0123456789abcdef';

describe('serveMetrics', () => {
  it('needs a bearer token when the address is not loopback (compared in constant time)', async () => {
    const registry = new Registry();
    new Counter({ name: 'probe_total', help: 'probe', registers: [registry] }).inc();
    // Bound on loopback for the test, but treated as a non-loopback address.
    server = await serveMetrics(
      { raw: 'http://127.0.0.1:0', host: '127.0.0.1', port: 0, path: '/metrics', loopback: false },
      registry,
      [TOKEN],
    );
    const anonymous = await fetch(server.url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await fetch(server.url, { headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` } });
    expect(wrong.status).toBe(401);
    const ok = await fetch(server.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('probe_total 1');
    const post = await fetch(server.url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(post.status).toBe(405);
  });

  it('serves loopback without a token, and says where the metrics are on other paths', async () => {
    server = await serveMetrics(
      { raw: 'http://127.0.0.1:0/prom', host: '127.0.0.1', port: 0, path: '/prom', loopback: true },
      new Registry(),
      [],
    );
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/prom$/);
    expect((await fetch(server.url)).status).toBe(200);
    const elsewhere = await fetch(server.url.replace('/prom', '/metrics'));
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.text()).toContain('/prom');
  });
});
