/** End to end: the https:// serve target (PEM cert and key) and the vsock target, next to the unix socket. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, modernMeta, NdjsonClient, resourceValue } from '@agentd/test-support';
import { vsockUnavailableReason } from '@agentd/transport-vsock';
import { describe, expect, it } from 'vitest';
import { startAgentd } from './support/agentd-process.js';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function postJson(url: string, body: Json, ca: string): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        ca,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-method': String(body.method),
          'mcp-protocol-version': '2026-07-28',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Json }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('serve targets', () => {
  it.skipIf(!hasOpenssl())('serves https with a PEM certificate and key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-tls-'));
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const agentd = await startAgentd({
      args: ['--serve', 'https://127.0.0.1:0', '--tls-cert', cert, '--tls-key', key],
    });
    try {
      const url = agentd.stdout
        .join('')
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l.startsWith('https://')) as string;
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const { status, body } = await postJson(
        url,
        { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } },
        readFileSync(cert, 'utf8'),
      );
      expect(status).toBe(200);
      expect((body.result as Json).supportedVersions).toContain('2026-07-28');
    } finally {
      await agentd.stop();
    }
  });

  // Binding needs the addon and a vsock device (a VM guest); CI runners without one skip this.
  it.skipIf(vsockUnavailableReason() !== undefined || !existsSync('/dev/vsock'))(
    'binds a vsock port next to the unix socket',
    async () => {
      const port = 40_000 + Math.floor(Math.random() * 20_000);
      const agentd = await startAgentd({ args: ['--serve', `vsock:${port}`] });
      try {
        const c = await NdjsonClient.connect(agentd.socket);
        const inventory = resourceValue(await c.modernResult('resources/read', { uri: 'agent://inventory' }));
        expect(inventory.listeners).toEqual(
          expect.arrayContaining([{ target: `vsock:${port}`, address: `vsock:any:${port}` }]),
        );
        c.end();
      } finally {
        expect((await agentd.stop()).code).toBe(0);
      }
    },
  );
});
