/**
 * Failures a fleet replica must not keep to itself, end to end (a real daemon, a real
 * redis-server): pub/sub messages it cannot read are logged at warn and counted by channel in
 * its Prometheus metrics; a lease renewal that fails (Redis down) is logged at warn and counted,
 * and its recovery is logged.
 */
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { RedisConnection } from '@agentd/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';

const runnable = clusterBinariesAvailable('agentd cluster failure tests', ['redis-server']);

/** One sample's value from the Prometheus text, e.g. `agentd_runs{state="running"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(agentd: Agentd): Promise<string> {
  const url = /metrics: (\S+)/.exec(agentd.stdout.join(''))?.[1] as string;
  return (await fetch(url)).text();
}

describe.runIf(runnable)('a fleet replica reports what goes wrong', () => {
  let redis: RedisServer;
  let agentd: Agentd;
  beforeAll(async () => {
    redis = await startRedisServer();
    agentd = await startAgentd({
      args: [
        '--no-watch',
        '--instance-id',
        'r1',
        '--lease-ttl-ms',
        '1200',
        '--metrics',
        'http://127.0.0.1:0',
      ],
      env: { AGENTD_REDIS_URL: redis.url },
    });
    await agentd.waitForLog((l) => l.msg === 'joined the fleet');
  }, 60_000);
  afterAll(async () => {
    await agentd?.stop();
    await redis?.close();
  });

  it('malformed cancel and bus messages: warn once per channel, every one counted', async () => {
    const other = await RedisConnection.connect({ url: redis.url });
    try {
      await other.publish('agentd:cancel:r1', 'not json');
      await other.publish('agentd:cancel:r1', JSON.stringify({ reason: 'no handle' }));
      await other.publish('agentd:events', '{"o":1}');
    } finally {
      await other.close();
    }
    const warned = await agentd.waitForLog(
      (l) => l.msg === 'malformed pub/sub message dropped' && l.channel === 'agentd:cancel:r1',
    );
    expect(warned).toMatchObject({ level: 'warning', reason: 'not JSON' });
    await agentd.waitForLog(
      (l) => l.msg === 'malformed pub/sub message dropped' && l.channel === 'agentd:events',
    );
    const body = await scrape(agentd);
    expect(sample(body, 'agentd_cluster_malformed_messages_total{channel="agentd:cancel:r1"}')).toBe(2);
    expect(sample(body, 'agentd_cluster_malformed_messages_total{channel="agentd:events"}')).toBe(1);
    expect(sample(body, 'agentd_cluster_lease_renewal_failures_total')).toBe(0);
  });

  it('a failed lease renewal is a warning and a counter; the recovery is logged', async () => {
    const since = agentd.logs.length;
    await redis.stop();
    const failed = await agentd.waitForLog((l) => String(l.msg).startsWith('lease renewal failed'), {
      since,
      timeoutMs: 20_000,
    });
    expect(failed).toMatchObject({ level: 'warning', instance: 'r1', consecutiveFailures: 1 });
    expect(
      sample(await scrape(agentd), 'agentd_cluster_lease_renewal_failures_total'),
    ).toBeGreaterThanOrEqual(1);
    await redis.start();
    const back = await agentd.waitForLog((l) => l.msg === 'lease renewed again', {
      since,
      timeoutMs: 30_000,
    });
    expect(back).toMatchObject({ level: 'info', instance: 'r1' });
    expect(Number(back.afterFailures)).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
