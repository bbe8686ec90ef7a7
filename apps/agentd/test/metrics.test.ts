/** End to end: Prometheus metrics on --metrics, fed by real runs, connections, requests and Code Mode limits. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NdjsonClient } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { runCli, startAgentd } from './support/agentd-process.js';

/** One sample's value from the Prometheus text, e.g. `agentd_runs{state="running"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A raw GET with a chosen Host header (fetch does not let a test forge it). */
function get(url: string, host?: string): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: host === undefined ? {} : { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        body += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('metrics', () => {
  it('serves runs by state, durations, queue depth, connections, requests and Code Mode limit hits', async () => {
    const agentd = await startAgentd({
      args: ['--metrics', 'http://127.0.0.1:0'],
      config: { codeMode: { cpuMs: 100 }, agents: { example: TEST_AGENT_CONFIG } },
    });
    const url = /metrics: (\S+)/.exec(agentd.stdout.join(''))?.[1] as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const c = await NdjsonClient.connect(agentd.socket);
    try {
      const execute = (code: string) =>
        c.modernResult('tools/call', { name: 'execute', arguments: { code } });
      await execute("return await agentd.subagent.spawn({ instruction: 'echo hi' });");
      await execute("return await agentd.subagent.spawn({ instruction: 'fail now' });");
      const hog = await execute('while (true) {}');
      expect(hog.isError).toBe(true);
      await agentd.waitForLog((l) => l.msg === 'subagent ended' && l.state === 'failed');

      const { status, body, type } = await get(url);
      expect(status).toBe(200);
      expect(type).toContain('text/plain');
      expect(sample(body, 'agentd_runs{state="succeeded"}')).toBe(1);
      expect(sample(body, 'agentd_runs{state="failed"}')).toBe(1);
      expect(sample(body, 'agentd_runs{state="running"}')).toBe(0);
      expect(sample(body, 'agentd_runs_ended_total{state="succeeded"}')).toBe(1);
      expect(sample(body, 'agentd_run_duration_seconds_count{agent="example",state="succeeded"}')).toBe(1);
      expect(sample(body, 'agentd_admission_queue_depth{queue="codemode"}')).toBe(0);
      expect(sample(body, 'agentd_connections{transport="unix"}')).toBe(1);
      expect(sample(body, 'agentd_requests_total{method="tools/call",outcome="ok"}')).toBe(2);
      expect(sample(body, 'agentd_requests_total{method="tools/call",outcome="error"}')).toBe(1);
      expect(sample(body, 'agentd_codemode_executions_total{outcome="ok"}')).toBe(2);
      expect(sample(body, 'agentd_codemode_executions_total{outcome="cpu_deadline"}')).toBe(1);
      expect(sample(body, 'agentd_codemode_limit_hits_total{limit="cpu_deadline"}')).toBe(1);

      // Only GET on the metrics path, and only for loopback Host names (no DNS rebinding).
      expect((await get(url, 'evil.example:80')).status).toBe(403);
      expect((await get(url.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      c.end();
      await agentd.stop();
    }
  });

  it('validates the address: http only, explicit port, loopback unless a bearer token is configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-metrics-'));
    const check = async (config: object) => {
      const file = join(dir, `c${Math.random()}.json`);
      writeFileSync(file, JSON.stringify(config));
      return runCli(['config', 'check', file]);
    };
    const remote = await check({ metrics: 'http://0.0.0.0:9464' });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('needs a bearer token');
    expect((await check({ metrics: 'https://127.0.0.1:9464' })).code).toBe(2);
    expect((await check({ metrics: 'http://127.0.0.1' })).stderr).toContain('explicit port');
    expect((await check({ metrics: 'http://127.0.0.1:9464' })).code).toBe(0);
    const withToken = await check({
      metrics: 'http://0.0.0.0:9464',
      auth: { bearerTokens: [{ name: 'prom', token: 'prometheus-scrape-token-0123' }] },
    });
    expect(withToken.code).toBe(0);
  });
});
