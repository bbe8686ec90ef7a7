/** A skills folder on disk, for real: scanning, digests, watched changes (debounced), and refused content. */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dispatcher } from '@agentd/dispatch';
import { type JsonObject, LocalError, silentLogger } from '@agentd/rpc-frame';
import { memoryLogger } from '@agentd/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SkillsFolder, serveSkillsFolder } from './skills-folder.js';
import { makeContext, rpc } from './test-support/request-context.js';

let dir: string;
let outside: string;
let folder: SkillsFolder | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentd-skills-'));
  outside = await mkdtemp(join(tmpdir(), 'agentd-outside-'));
});
afterEach(async () => {
  folder?.close();
  folder = undefined;
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const md = (name: string, description = `The ${name} skill`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;

async function put(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), content);
}

async function call(d: Dispatcher, method: string, params: JsonObject = {}) {
  return d.handle(rpc(method, params), makeContext({ era: 'modern' }));
}

async function listed(d: Dispatcher): Promise<JsonObject[]> {
  return (await call(d, 'skills/list')).skills as JsonObject[];
}

async function rejection(promise: Promise<unknown>): Promise<LocalError<string>> {
  const error = await promise.then(
    () => {
      throw new Error('expected serveSkillsFolder to reject');
    },
    (e: unknown) => e,
  );
  if (!(error instanceof LocalError)) throw error;
  return error;
}

describe('serveSkillsFolder', () => {
  it('serves every directory with a SKILL.md, nested ones and prefixes included, skipping dotfiles', async () => {
    await put('pdf-processing/SKILL.md', md('pdf-processing'));
    await put('pdf-processing/templates/invoice.md', '# Invoice\n');
    await put('pdf-processing/.DS_Store', 'junk');
    await put('team/review/SKILL.md', md('review'));
    await put('team/review/checklists/SKILL.md', md('checklists'));
    await put('.git/config', 'x');
    const d = new Dispatcher({ logger: silentLogger });
    folder = await serveSkillsFolder(d, dir, { watch: false, prefix: 'acme' });
    expect(folder.skills).toEqual([
      'skill://acme/pdf-processing/SKILL.md',
      'skill://acme/team/review/SKILL.md',
      'skill://acme/team/review/checklists/SKILL.md',
    ]);
    const pdf = (await listed(d)).find((s) => s.uri === 'skill://acme/pdf-processing/SKILL.md') as JsonObject;
    expect(pdf.resources).toEqual([
      {
        uri: 'skill://acme/pdf-processing/SKILL.md',
        digest: `sha256:${createHash('sha256').update(md('pdf-processing')).digest('hex')}`,
        size: Buffer.byteLength(md('pdf-processing')),
      },
      expect.objectContaining({ uri: 'skill://acme/pdf-processing/templates/invoice.md', size: 10 }),
    ]);
    // The encloser lists the nested skill's files as its own.
    const review = (await listed(d)).find((s) => s.uri === 'skill://acme/team/review/SKILL.md') as JsonObject;
    expect((review.resources as JsonObject[]).map((r) => r.uri)).toContain(
      'skill://acme/team/review/checklists/SKILL.md',
    );
    expect(d.capabilities().extensions).toEqual({
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    folder.close();
    expect(await listed(d)).toEqual([]);
    expect(folder.skills).toEqual([]);
  });

  it('an empty folder still offers the extension (skills may arrive later)', async () => {
    const d = new Dispatcher({ logger: silentLogger });
    folder = await serveSkillsFolder(d, dir, { watch: false });
    expect(d.capabilities()).toMatchObject({
      resources: {},
      extensions: { 'io.modelcontextprotocol/skills': {} },
    });
    expect(await listed(d)).toEqual([]);
  });

  it('refuses symlinks out of the folder, oversize files and bad skills at the first scan', async () => {
    await put('good/SKILL.md', md('good'));
    await writeFile(join(outside, 'secret.txt'), 'top secret');
    await put('leaky/SKILL.md', md('leaky'));
    await symlink(join(outside, 'secret.txt'), join(dir, 'leaky', 'secret.txt'));
    const d = new Dispatcher({ logger: silentLogger });
    const leak = await rejection(serveSkillsFolder(d, dir, { watch: false }));
    expect(leak.code).toBe('invalid_definition');
    expect(leak.message).toContain('symlink leaky/secret.txt resolves outside the skills folder');
    expect(await listed(d)).toEqual([]);

    await rm(join(dir, 'leaky'), { recursive: true });
    await put('huge/SKILL.md', md('huge'));
    await put('huge/blob.bin', '');
    await truncate(join(dir, 'huge', 'blob.bin'), 16 * 1024 * 1024 + 1);
    const huge = await rejection(serveSkillsFolder(d, dir, { watch: false }));
    expect(huge.message).toMatch(/huge\/blob\.bin is 16777217 bytes, over the 16 MiB/);

    await rm(join(dir, 'huge'), { recursive: true });
    await put('wrong/SKILL.md', md('other'));
    const wrong = await rejection(serveSkillsFolder(d, dir, { watch: false }));
    expect(wrong.message).toMatch(/differs from the last path segment/);

    await rm(join(dir, 'wrong'), { recursive: true });
    // A symlink that stays inside the folder is followed; a loop is refused.
    await symlink(join(dir, 'good', 'SKILL.md'), join(dir, 'good', 'ALIAS.md'));
    folder = await serveSkillsFolder(d, dir, { watch: false });
    const alias = await call(d, 'resources/read', { uri: 'skill://good/ALIAS.md' });
    expect((alias.contents as JsonObject[])[0]?.text).toBe(md('good'));
    folder.close();
    await symlink(join(dir, 'good'), join(dir, 'good', 'loop'));
    expect((await rejection(serveSkillsFolder(d, dir, { watch: false }))).message).toMatch(/loops back/);

    await expect(serveSkillsFolder(d, join(dir, 'nope'), { watch: false })).rejects.toMatchObject({
      code: 'invalid_option',
    });
  });

  it('watches: a change rescans (debounced) and replaces only what changed; bad content is withheld and logged', async () => {
    await put('alpha/SKILL.md', md('alpha'));
    await put('beta/SKILL.md', md('beta'));
    // No `logger` option: the folder logs through the server's.
    const logger = memoryLogger();
    const d = new Dispatcher({ logger, surfaceDebounceMs: 1 });
    d.onConnect();
    const surface: string[][] = [];
    d.onSurfaceChanged((kinds) => surface.push([...kinds]));
    const changes: string[][] = [];
    folder = await serveSkillsFolder(d, dir, {
      debounceMs: 150,
      onChange: (uris) => changes.push([...uris]),
    });
    const served = folder;

    // A burst of writes to one skill: coalesced into fewer rescans than writes.
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'alpha', `note-${i}.md`), `note ${i}\n`);
    await expect
      .poll(async () => ((await listed(d))[0]?.resources as JsonObject[] | undefined)?.length, {
        timeout: 15_000,
      })
      .toBe(21);
    expect(changes.length).toBeLessThan(20);
    expect(changes.flat().every((uri) => uri === 'skill://alpha/SKILL.md')).toBe(true);
    await expect.poll(() => surface.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(surface.flat().every((kind) => kind === 'resources')).toBe(true);

    // A new skill appears; a removed one disappears.
    await put('gamma/SKILL.md', md('gamma'));
    await rm(join(dir, 'beta'), { recursive: true });
    await expect
      .poll(() => served.skills, { timeout: 15_000 })
      .toEqual(['skill://alpha/SKILL.md', 'skill://gamma/SKILL.md']);

    // An edit that breaks a skill withholds it (logged), the others stay.
    await writeFile(join(dir, 'gamma', 'SKILL.md'), '# no frontmatter\n');
    await expect.poll(() => served.skills, { timeout: 15_000 }).toEqual(['skill://alpha/SKILL.md']);
    expect(logger.records.some((r) => JSON.stringify(r).includes('frontmatter block'))).toBe(true);

    // Content served is always what the digest describes, after edits too.
    await writeFile(join(dir, 'alpha', 'SKILL.md'), md('alpha', 'Edited description'));
    await expect
      .poll(async () => ((await listed(d))[0]?.frontmatter as JsonObject | undefined)?.description, {
        timeout: 15_000,
      })
      .toBe('Edited description');
    const entry = (await listed(d))[0] as JsonObject;
    const manifest = (entry.resources as JsonObject[])[0] as JsonObject;
    const read = await call(d, 'resources/read', { uri: 'skill://alpha/SKILL.md' });
    const text = (read.contents as JsonObject[])[0]?.text as string;
    expect(`sha256:${createHash('sha256').update(text).digest('hex')}`).toBe(manifest.digest);

    // After close no rescan touches the dispatcher.
    served.close();
    await put('delta/SKILL.md', md('delta'));
    await served.rescan();
    expect(await listed(d)).toEqual([]);
  });

  it('Dispatcher.close() stops the folder', async () => {
    await put('alpha/SKILL.md', md('alpha'));
    const d = new Dispatcher({ logger: silentLogger });
    const served = await serveSkillsFolder(d, dir, { debounceMs: 10 });
    await d.close();
    expect(served.skills).toEqual([]);
  });
});
