/**
 * The Skills extension end to end: a skills folder on disk behind the real server core on a real
 * unix socket, read by the official v2 client's `SkillsClient` (which verifies sizes, digests and
 * frontmatter) in both eras, plus raw JSON-RPC for the wire errors and `list_changed`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dispatcher } from '@agentd/dispatch';
import { silentLogger } from '@agentd/rpc-frame';
import { createServerCore, type ServerCore, serveConnection } from '@agentd/server';
import { NdjsonClient, streamTransport } from '@agentd/test-support';
import { Client, ReadBuffer, serializeMessage } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerSkill } from './register-skill.js';
import { type SkillsFolder, serveSkillsFolder } from './skills-folder.js';

const SKILL_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: "2.1.0"\n---\n\n# PDF processing\n\nChoose the matching template from `templates/`.\n';
const DAILY_MD = "---\nname: daily\ndescription: Assemble today's report\n---\n\nRead `data.csv`.\n";
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0xff]);

let dir: string;
let socketDir: string;
let core: ServerCore;
let folder: SkillsFolder;
let listener: net.Server;
const cleanups: Array<() => Promise<void> | void> = [];

async function put(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), content);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentd-skills-e2e-'));
  socketDir = await mkdtemp(join(tmpdir(), 'agentd-skills-sock-'));
  await put('pdf-processing/SKILL.md', SKILL_MD);
  await put('pdf-processing/references/FORMS.md', '# Forms\n');
  await put('pdf-processing/templates/invoice.md', '# Invoice\n');
  await put('pdf-processing/templates/regional/eu-invoice.md', '# EU invoice\n');
  await put('pdf-processing/assets/logo.png', PNG);
  const dispatcher = new Dispatcher({ logger: silentLogger, surfaceDebounceMs: 5 });
  folder = await serveSkillsFolder(dispatcher, dir, { debounceMs: 50, logger: silentLogger });
  registerSkill(dispatcher, {
    path: 'reports/daily',
    frontmatter: { name: 'daily', description: "Assemble today's report" },
    dynamic: {
      read: (path) => (path === 'SKILL.md' ? DAILY_MD : path === 'data.csv' ? 'a,b\n1,2\n' : undefined),
    },
  });
  core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'skills-e2e', version: '1.0.0' },
    logger: silentLogger,
  });
  dispatcher.onSurfaceChanged((kinds) => {
    for (const kind of kinds) core.notifyListChanged(kind);
  });
  const sockets = new Set<net.Socket>();
  listener = net.createServer((socket) => {
    sockets.add(socket);
    serveConnection(socket, 'management', core, { transport: 'unix' });
  });
  const path = join(socketDir, 's.sock');
  await new Promise<void>((resolve) => listener.listen(path, resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => listener.close(resolve));
    folder.close();
    await core.close();
    await rm(dir, { recursive: true, force: true });
    await rm(socketDir, { recursive: true, force: true });
  });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dial(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ path: join(socketDir, 's.sock') });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function sdkClient(version: '2025-11-25' | '2026-07-28'): Promise<SkillsClient> {
  const mode = version === '2026-07-28' ? ({ pin: version } as const) : ('legacy' as const);
  const client = new Client({ name: 'skills-host', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(streamTransport(await dial(), { ReadBuffer, serializeMessage }));
  cleanups.push(() => client.close());
  return new SkillsClient(client);
}

async function raw(): Promise<NdjsonClient> {
  const socket = await dial();
  cleanups.push(() => {
    socket.destroy();
  });
  return new NdjsonClient(socket);
}

describe.each(['2025-11-25', '2026-07-28'] as const)('the official SkillsClient at %s', (version) => {
  it('sees the extension, lists, gets and reads every file with verification', async () => {
    const skills = await sdkClient(version);
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((s) => s.uri)).toEqual([
      'skill://pdf-processing/SKILL.md',
      'skill://reports/daily/SKILL.md',
    ]);
    // The cache fields exist only on 2026-07-28, so they also show which era was negotiated.
    if (version === '2026-07-28') expect(listing).toMatchObject({ ttlMs: 10_000, cacheScope: 'public' });
    else expect(listing.ttlMs).toBeUndefined();
    const entry = listing.skills[0];
    if (!entry) throw new Error('no entry');
    expect(entry.frontmatter).toEqual({
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      metadata: { version: '2.1.0' },
    });
    const got = await skills.get(entry.uri);
    expect(got.skill).toEqual(entry);
    if (version === '2026-07-28') expect(got).toMatchObject({ ttlMs: 0, cacheScope: 'public' });

    const manifest = await skills.read(entry);
    expect(manifest).toMatchObject({ verified: true, mimeType: 'text/markdown', text: SKILL_MD });
    expect(manifest.frontmatter).toEqual(entry.frontmatter);
    const forms = await skills.read(entry, 'references/FORMS.md');
    expect(forms.text).toBe('# Forms\n');
    const logo = await skills.read(entry, 'assets/logo.png');
    expect(logo.verified).toBe(true);
    expect(Buffer.from(logo.bytes)).toEqual(PNG);

    // A generated skill: no digests to check, but the frontmatter still must match.
    const daily = listing.skills[1];
    if (!daily) throw new Error('no dynamic entry');
    expect(daily.resources).toBe('dynamic');
    expect(await skills.read(daily)).toMatchObject({ verified: false, text: DAILY_MD });
    expect((await skills.read(daily, 'data.csv')).text).toBe('a,b\n1,2\n');

    const templates = await skills.readDirectory('skill://pdf-processing/templates');
    expect(templates.resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ['skill://pdf-processing/templates/invoice.md', 'text/markdown'],
      ['skill://pdf-processing/templates/regional', 'inode/directory'],
    ]);
  });

  it('a watched edit is seen through skills/get and verifies against the new entry', async () => {
    const skills = await sdkClient(version);
    const before = (await skills.list()).skills.find((s) => s.uri === 'skill://pdf-processing/SKILL.md');
    if (!before) throw new Error('no entry');
    await put('pdf-processing/templates/credit-note.md', '# Credit note\n');
    await expect
      .poll(async () => ((await skills.get(before.uri)).skill.resources as unknown[]).length, {
        timeout: 15_000,
      })
      .toBe(6);
    const after = (await skills.get(before.uri)).skill;
    expect((await skills.read(after, 'templates/credit-note.md')).text).toBe('# Credit note\n');
    // The host refuses a file the held (older) entry does not list.
    await expect(skills.read(before, 'templates/credit-note.md')).rejects.toMatchObject({
      reason: 'unlisted',
    });
  });
});

describe('the wire, raw', () => {
  it('legacy: initialize shows the extension; a folder change pushes resources list_changed', async () => {
    const peer = await raw();
    const init = await peer.initialize('2025-11-25');
    expect(init.capabilities).toMatchObject({
      resources: { listChanged: true },
      extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
    });
    await put(
      'git-workflow/SKILL.md',
      '---\nname: git-workflow\ndescription: Branch and commit conventions\n---\n',
    );
    await peer.waitFor(
      (m) => m.method === 'notifications/resources/list_changed',
      15_000,
      'resources list_changed',
    );
    const listed = await peer.legacy('skills/list', {});
    expect((listed.skills as Array<{ uri: string }>).map((s) => s.uri)).toEqual([
      'skill://git-workflow/SKILL.md',
      'skill://pdf-processing/SKILL.md',
      'skill://reports/daily/SKILL.md',
    ]);
  });

  it.each(['legacy', 'modern'] as const)('%s: bad input gets -32602 with a clear message', async (era) => {
    const peer = await raw();
    if (era === 'legacy') await peer.initialize('2025-11-25');
    const ask = (method: string, params: Record<string, unknown>) =>
      era === 'legacy' ? peer.request(method, params) : peer.modern(method, params);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['skills/get', { uri: 'skill://nope/SKILL.md' }, 'No skill is served at skill://nope/SKILL.md'],
      ['resources/directory/read', { uri: 'skill://pdf-processing/SKILL.md' }, 'is not a directory resource'],
      ['resources/read', { uri: 'skill://pdf-processing/../../../../etc/passwd' }, 'never traverse'],
      ['resources/read', { uri: 'skill://pdf-processing/%2E%2E/secret' }, 'never traverse'],
      ['skills/get', { uri: 'skill://pdf-processing/../pdf-processing/SKILL.md' }, 'never traverse'],
    ];
    for (const [method, params, text] of cases) {
      const answer = await ask(method, params);
      expect(answer.error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(answer.error?.message).toContain(text);
    }
    if (era === 'modern') {
      const discover = await peer.modern('server/discover', {});
      expect(discover.result?.capabilities).toMatchObject({
        extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
      });
      const read = await peer.modern('resources/read', { uri: 'skill://pdf-processing/SKILL.md' });
      expect(read.result).toMatchObject({
        resultType: 'complete',
        contents: [{ mimeType: 'text/markdown', text: SKILL_MD }],
      });
    }
  });
});
