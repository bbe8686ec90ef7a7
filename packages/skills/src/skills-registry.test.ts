/** Skills registered in code: entries, digests, pages, skills/get, directory reads, filters and registration errors. */
import { createHash } from 'node:crypto';
import { Dispatcher, type DispatcherOptions, McpServer } from '@agentd/dispatch';
import { ErrorCode } from '@agentd/lifecycle';
import { type JsonObject, LocalError, silentLogger } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { registerSkill } from './register-skill.js';
import type { SkillDefinition } from './skill-build.js';
import { asWireError, makeContext, resolvedUnexpectedly, rpc } from './test-support/request-context.js';

const PDF_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\nmetadata:\n  version: "2.1"\n---\n\n# PDF\n\nUse `templates/`.\n';
const PDF: SkillDefinition = {
  path: 'pdf-processing',
  files: {
    'SKILL.md': PDF_MD,
    'references/FORMS.md': '# Forms\n',
    'templates/invoice.md': '# Invoice\n',
    'templates/regional/eu invoice.md': '# EU\n',
    'assets/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]),
  },
};
const REFUNDS: SkillDefinition = {
  path: 'acme/billing/refunds',
  files: { 'SKILL.md': '---\nname: refunds\ndescription: Refund per policy\n---\nBody\n' },
};

function digest(content: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

function setup(options: DispatcherOptions = {}) {
  const dispatcher = new Dispatcher({ logger: silentLogger, ...options });
  registerSkill(dispatcher, PDF);
  registerSkill(dispatcher, REFUNDS);
  return dispatcher;
}

async function call(
  d: Dispatcher,
  method: string,
  params: JsonObject = {},
  era: 'legacy' | 'modern' = 'legacy',
) {
  return d.handle(rpc(method, params), makeContext({ era }));
}

async function wireError(promise: Promise<unknown>) {
  return promise.then(resolvedUnexpectedly, asWireError);
}

function localError(fn: () => unknown): LocalError<string> {
  try {
    fn();
  } catch (error) {
    if (error instanceof LocalError) return error;
    throw error;
  }
  throw new Error('expected a LocalError');
}

describe('skills registered in code', () => {
  it('declares the extension inline with directoryRead, plus resources', () => {
    const d = setup();
    expect(d.capabilities()).toMatchObject({
      resources: { listChanged: true },
      extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
    });
    const plain = setup({ extensions: { 'io.modelcontextprotocol/skills': {} } });
    expect(plain.capabilities().extensions).toEqual({ 'io.modelcontextprotocol/skills': {} });
    // Once offered, the extension and the resources capability stay while no skill is left.
    const emptied = new Dispatcher({ logger: silentLogger });
    expect(emptied.capabilities().extensions).toBeUndefined();
    expect(registerSkill(emptied, REFUNDS)()).toBe(true);
    expect(emptied.capabilities()).toMatchObject({
      resources: {},
      extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
    });
  });

  it('one provider serves every skill registered on a server, whichever handle registered it', async () => {
    const server = new McpServer({ name: 'skills', version: '1.0.0' }, { logger: silentLogger });
    registerSkill(server, PDF);
    registerSkill(server.dispatcher, REFUNDS);
    const listed = (await call(server.dispatcher, 'skills/list')).skills as JsonObject[];
    expect(listed.map((s) => s.uri)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
      'skill://pdf-processing/SKILL.md',
    ]);
    // The skills methods are served once: a provider of them besides is refused.
    const again = localError(() =>
      server.dispatcher.registerProvider({ name: 'again', methods: ['skills/list'], handle: () => ({}) }),
    );
    expect(again.code).toBe('duplicate');
    expect(again.message).toMatch(/skills\/list is already served by skills/);
    await server.close();
  });

  it('refuses a host that is neither an McpServer nor a Dispatcher', () => {
    const error = localError(() => registerSkill({} as Dispatcher, REFUNDS));
    expect(error.code).toBe('invalid_option');
    expect(error.message).toBe('registerSkill takes an McpServer or a Dispatcher as its first argument');
  });

  it('an explicit declaration through the extension seam wins over the skills defaults', async () => {
    const d = new Dispatcher({ logger: silentLogger, extensions: { 'io.modelcontextprotocol/skills': {} } });
    registerSkill(d, REFUNDS);
    expect(d.capabilities().extensions).toEqual({ 'io.modelcontextprotocol/skills': {} });
    expect((await call(d, 'skills/list')).skills).toHaveLength(1);
    const error = await wireError(call(d, 'resources/directory/read', { uri: 'skill://acme' }));
    expect(error.code).toBe(ErrorCode.MethodNotFound);
  });

  it('skills/list carries verbatim frontmatter and a complete, digested manifest', async () => {
    const d = setup();
    const result = await call(d, 'skills/list');
    const skills = result.skills as JsonObject[];
    expect(skills.map((s) => s.uri)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
      'skill://pdf-processing/SKILL.md',
    ]);
    const pdf = skills[1] as JsonObject;
    expect(pdf.frontmatter).toEqual({
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      license: 'MIT',
      metadata: { version: '2.1' },
    });
    expect(pdf.resources).toEqual([
      { uri: 'skill://pdf-processing/SKILL.md', digest: digest(PDF_MD), size: Buffer.byteLength(PDF_MD) },
      {
        uri: 'skill://pdf-processing/assets/logo.png',
        digest: digest(PDF.files['assets/logo.png'] as Uint8Array),
        size: 8,
      },
      { uri: 'skill://pdf-processing/references/FORMS.md', digest: digest('# Forms\n'), size: 8 },
      { uri: 'skill://pdf-processing/templates/invoice.md', digest: digest('# Invoice\n'), size: 10 },
      { uri: 'skill://pdf-processing/templates/regional/eu%20invoice.md', digest: digest('# EU\n'), size: 5 },
    ]);
    // Legacy era: no resultType, no cache fields.
    expect(result).not.toHaveProperty('resultType');
    expect(result).not.toHaveProperty('ttlMs');
    const modern = await call(d, 'skills/list', {}, 'modern');
    expect(modern).toMatchObject({ ttlMs: 10_000, cacheScope: 'public' });
  });

  it('pages whole entries and refuses foreign cursors', async () => {
    const d = setup({ pageSize: 1 });
    const first = await call(d, 'skills/list');
    expect((first.skills as JsonObject[]).map((s) => s.uri)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
    ]);
    const second = await call(d, 'skills/list', { cursor: first.nextCursor as string });
    expect((second.skills as JsonObject[])[0]?.resources).toHaveLength(5);
    expect(second).not.toHaveProperty('nextCursor');
    const bad = await wireError(call(d, 'skills/list', { cursor: 'bm9wZQ' }));
    expect(bad.code).toBe(ErrorCode.InvalidParams);
    const toolsCursor = (await call(setup({ pageSize: 1 }), 'resources/list')).nextCursor as string;
    expect((await wireError(call(d, 'skills/list', { cursor: toolsCursor }))).code).toBe(
      ErrorCode.InvalidParams,
    );
  });

  it('skills/get returns the listed entry with cache fields (modern) and -32602 for anything else', async () => {
    const d = setup();
    const got = await call(d, 'skills/get', { uri: 'skill://pdf-processing/SKILL.md' }, 'modern');
    const listed = ((await call(d, 'skills/list')).skills as JsonObject[])[1];
    expect(got.skill).toEqual(listed);
    expect(got).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
    expect(got).not.toHaveProperty('nextCursor');
    for (const era of ['legacy', 'modern'] as const) {
      const unknown = await wireError(call(d, 'skills/get', { uri: 'skill://nope/SKILL.md' }, era));
      expect(unknown.code).toBe(ErrorCode.InvalidParams);
      expect(unknown.message).toBe('No skill is served at skill://nope/SKILL.md');
      // A file of a skill is no skill.
      const file = await wireError(
        call(d, 'skills/get', { uri: 'skill://pdf-processing/references/FORMS.md' }, era),
      );
      expect(file.code).toBe(ErrorCode.InvalidParams);
      const traversal = await wireError(
        call(d, 'skills/get', { uri: 'skill://pdf-processing/../x/SKILL.md' }, era),
      );
      expect(traversal.code).toBe(ErrorCode.InvalidParams);
      expect(traversal.message).toMatch(/never traverse/);
      expect((await wireError(call(d, 'skills/get', {}, era))).message).toMatch(/uri must be/);
    }
  });

  it('serves each file through resources/read: SKILL.md as text/markdown, bytes as blob', async () => {
    const d = setup();
    const listed = (await call(d, 'resources/list')).resources as JsonObject[];
    expect(listed.find((r) => r.uri === 'skill://pdf-processing/SKILL.md')).toEqual({
      uri: 'skill://pdf-processing/SKILL.md',
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      mimeType: 'text/markdown',
      size: Buffer.byteLength(PDF_MD),
    });
    const manifest = await call(d, 'resources/read', { uri: 'skill://pdf-processing/SKILL.md' });
    expect(manifest.contents).toEqual([
      { uri: 'skill://pdf-processing/SKILL.md', mimeType: 'text/markdown', text: PDF_MD },
    ]);
    const logo = await call(d, 'resources/read', { uri: 'skill://pdf-processing/assets/logo.png' });
    const item = (logo.contents as JsonObject[])[0] as JsonObject;
    expect(item.mimeType).toBe('image/png');
    expect(Buffer.from(item.blob as string, 'base64')).toEqual(
      Buffer.from(PDF.files['assets/logo.png'] as Uint8Array),
    );
    const spaced = await call(d, 'resources/read', {
      uri: 'skill://pdf-processing/templates/regional/eu%20invoice.md',
    });
    expect((spaced.contents as JsonObject[])[0]?.text).toBe('# EU\n');
  });

  it('refuses traversing skill URIs on resources/read with -32602 in both eras', async () => {
    const d = setup();
    for (const era of ['legacy', 'modern'] as const) {
      for (const uri of [
        'skill://pdf-processing/../../etc/passwd',
        'skill://pdf-processing/%2e%2e/%2e%2e/etc/passwd',
        'skill://pdf-processing/references%2F..%2F..%2Fsecret',
        'skill://pdf-processing//SKILL.md',
        'skill://pdf-processing/./SKILL.md',
      ]) {
        const error = await wireError(call(d, 'resources/read', { uri }, era));
        expect(error.code, uri).toBe(ErrorCode.InvalidParams);
        expect(error.message).toContain('never traverse');
      }
      // Unknown but well-formed: the era's ordinary not-found.
      const missing = await wireError(
        call(d, 'resources/read', { uri: 'skill://pdf-processing/nope.md' }, era),
      );
      expect(missing.code).toBe(era === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound);
    }
  });

  it('resources/directory/read lists direct children, directories as inode/directory, paged', async () => {
    const d = setup();
    const root = await call(d, 'resources/directory/read', { uri: 'skill://pdf-processing' }, 'modern');
    expect(root.resultType).toBeUndefined();
    expect(root).toMatchObject({ ttlMs: 10_000, cacheScope: 'public' });
    expect((root.resources as JsonObject[]).map((r) => [r.uri, r.mimeType])).toEqual([
      ['skill://pdf-processing/SKILL.md', 'text/markdown'],
      ['skill://pdf-processing/assets', 'inode/directory'],
      ['skill://pdf-processing/references', 'inode/directory'],
      ['skill://pdf-processing/templates', 'inode/directory'],
    ]);
    const templates = await call(d, 'resources/directory/read', { uri: 'skill://pdf-processing/templates' });
    expect(templates.resources).toEqual([
      {
        uri: 'skill://pdf-processing/templates/invoice.md',
        name: 'invoice.md',
        mimeType: 'text/markdown',
        size: 10,
      },
      { uri: 'skill://pdf-processing/templates/regional', name: 'regional', mimeType: 'inode/directory' },
    ]);
    // The namespace above a nested skill path is browsable too.
    const acme = await call(d, 'resources/directory/read', { uri: 'skill://acme' });
    expect(acme.resources).toEqual([
      { uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' },
    ]);

    const paged = setup({ pageSize: 3 });
    const one = await call(paged, 'resources/directory/read', { uri: 'skill://pdf-processing' });
    expect(one.resources).toHaveLength(3);
    const two = await call(paged, 'resources/directory/read', {
      uri: 'skill://pdf-processing',
      cursor: one.nextCursor as string,
    });
    expect((two.resources as JsonObject[]).map((r) => r.uri)).toEqual(['skill://pdf-processing/templates']);
    // A cursor is bound to its directory.
    const elsewhere = await wireError(
      call(paged, 'resources/directory/read', {
        uri: 'skill://pdf-processing/templates',
        cursor: one.nextCursor as string,
      }),
    );
    expect(elsewhere.code).toBe(ErrorCode.InvalidParams);

    for (const uri of [
      'skill://pdf-processing/SKILL.md',
      'skill://nope',
      'skill://pdf-processing/templates/../..',
    ]) {
      const error = await wireError(call(d, 'resources/directory/read', { uri }));
      expect(error.code, uri).toBe(ErrorCode.InvalidParams);
    }
    expect(
      (await wireError(call(d, 'resources/directory/read', { uri: 'skill://pdf-processing/SKILL.md' })))
        .message,
    ).toBe('skill://pdf-processing/SKILL.md is not a directory resource');
    // Without directoryRead the method is unknown.
    const plain = setup({ extensions: { 'io.modelcontextprotocol/skills': {} } });
    expect(
      (await wireError(call(plain, 'resources/directory/read', { uri: 'skill://pdf-processing' }))).code,
    ).toBe(ErrorCode.MethodNotFound);
  });

  it('per-peer filters hide skills, their files and empty directories like missing ones', async () => {
    const d = setup({ filtersFor: () => ({ resources: { deny: ['skill://pdf-processing/*'] } }) });
    const listed = (await call(d, 'skills/list')).skills as JsonObject[];
    expect(listed.map((s) => s.uri)).toEqual(['skill://acme/billing/refunds/SKILL.md']);
    expect((await wireError(call(d, 'skills/get', { uri: 'skill://pdf-processing/SKILL.md' }))).code).toBe(
      ErrorCode.InvalidParams,
    );
    expect(
      (await wireError(call(d, 'resources/directory/read', { uri: 'skill://pdf-processing' }))).code,
    ).toBe(ErrorCode.InvalidParams);
    expect(
      (await call(d, 'resources/directory/read', { uri: 'skill://acme/billing' })).resources,
    ).toHaveLength(1);
  });

  it('nested skills are listed flat and share files with their encloser', async () => {
    const d = new Dispatcher({ logger: silentLogger });
    const inner = '---\nname: inner\ndescription: Inner skill\n---\n';
    registerSkill(d, {
      path: 'outer',
      files: { 'SKILL.md': '---\nname: outer\ndescription: Outer\n---\n', 'inner/SKILL.md': inner },
    });
    const removeInner = registerSkill(d, { path: 'outer/inner', files: { 'SKILL.md': inner } });
    const skills = (await call(d, 'skills/list')).skills as JsonObject[];
    expect(skills.map((s) => s.uri)).toEqual(['skill://outer/SKILL.md', 'skill://outer/inner/SKILL.md']);
    const resource = ((await call(d, 'resources/list')).resources as JsonObject[]).find(
      (r) => r.uri === 'skill://outer/inner/SKILL.md',
    );
    expect(resource?.name).toBe('inner');
    // Removing the nested skill keeps the file its encloser still lists.
    expect(removeInner()).toBe(true);
    const read = await call(d, 'resources/read', { uri: 'skill://outer/inner/SKILL.md' });
    expect((read.contents as JsonObject[])[0]?.text).toBe(inner);
    // The same URI with different bytes is a conflict.
    const conflict = localError(() =>
      registerSkill(d, { path: 'outer/inner', files: { 'SKILL.md': `${inner}changed\n` } }),
    );
    expect(conflict.code).toBe('duplicate');
  });

  it('refuses bad definitions with LocalErrors, leaving nothing registered', () => {
    const d = new Dispatcher({ logger: silentLogger });
    const md = (name: string, description = 'Does things') =>
      `---\nname: ${name}\ndescription: ${description}\n---\n`;
    const cases: Array<[SkillDefinition, RegExp]> = [
      [{ path: 'x', files: {} }, /no SKILL\.md/],
      [{ path: 'Bad_Name', files: { 'SKILL.md': md('Bad_Name') } }, /naming rules/],
      [{ path: 'a--b', files: { 'SKILL.md': md('a--b') } }, /naming rules/],
      [{ path: 'x', files: { 'SKILL.md': md('y') } }, /differs from the last path segment/],
      [{ path: 'x', files: { 'SKILL.md': '# no frontmatter' } }, /frontmatter block/],
      [{ path: 'x', files: { 'SKILL.md': '---\nname: x\n---\n' } }, /no description/],
      [{ path: 'x', files: { 'SKILL.md': '---\nname: x\ndescription: [unclosed\n---\n' } }, /not valid YAML/],
      [
        { path: 'x', files: { 'SKILL.md': '---\nname: x\ndescription: d\nn: .inf\n---\n' } },
        /JSON cannot represent/,
      ],
      [{ path: 'x', files: { 'SKILL.md': md('x', 'd'.repeat(1025)) } }, /longer than 1024/],
      [{ path: 'x', files: { 'SKILL.md': md('x'), '../escape.md': 'x' } }, /'\.\.'/],
      [{ path: 'x', files: { 'SKILL.md': md('x'), 'a//b.md': 'x' } }, /empty/],
      [{ path: 'x', files: { 'SKILL.md': md('x'), 'a\\b.md': 'x' } }, /backslash/],
      [{ path: 'x', files: { 'SKILL.md': md('x'), a: 'file', 'a/b': 'x' } }, /both a file and a directory/],
      [{ path: '../x', files: { 'SKILL.md': md('x') } }, /'\.\.'/],
      [{ path: 'a b/x', files: { 'SKILL.md': md('x') } }, /authority/],
      [{ path: 'x', files: { 'SKILL.md': new Uint8Array([0xff, 0xfe]) } }, /not UTF-8/],
    ];
    for (const [definition, message] of cases) {
      const error = localError(() => registerSkill(d, definition));
      expect(error.code, String(message)).toBe('invalid_definition');
      expect(error.message).toMatch(message);
    }
    const many: Record<string, string> = { 'SKILL.md': md('many') };
    for (let i = 0; i < 512; i++) many[`f${i}.txt`] = '';
    expect(localError(() => registerSkill(d, { path: 'many', files: many })).message).toMatch(/at most 512/);
    const big = new Uint8Array(16 * 1024 * 1024);
    expect(
      localError(() => registerSkill(d, { path: 'big', files: { 'SKILL.md': md('big'), 'blob.bin': big } }))
        .message,
    ).toMatch(/16 MiB/);
    // Exactly at the limits is fine.
    delete many['f511.txt'];
    registerSkill(d, { path: 'many', files: many });
    expect(localError(() => registerSkill(d, { path: 'many', files: many })).code).toBe('duplicate');
    d.registerResource({ uri: 'skill://taken/SKILL.md', name: 'taken', read: () => 'x' });
    expect(
      localError(() => registerSkill(d, { path: 'taken', files: { 'SKILL.md': md('taken') } })).code,
    ).toBe('duplicate');
  });

  it('registering and removing skills marks the resources surface changed', async () => {
    const d = new Dispatcher({ logger: silentLogger, surfaceDebounceMs: 1 });
    d.onConnect();
    const seen: string[][] = [];
    d.onSurfaceChanged((kinds) => seen.push([...kinds]));
    const remove = registerSkill(d, REFUNDS);
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toEqual(['resources']);
    expect(remove()).toBe(true);
    expect(remove()).toBe(false);
    await expect.poll(() => seen.length).toBe(2);
    expect((await call(d, 'skills/list')).skills).toEqual([]);
  });

  it('a dynamic skill publishes "resources": "dynamic" and is read and browsed through its source', async () => {
    const d = new Dispatcher({ logger: silentLogger });
    const reads: string[] = [];
    const files: Record<string, string | Uint8Array> = {
      'SKILL.md': "---\nname: daily\ndescription: Today's report\n---\n\n# Daily\n",
      'data/today.json': '{"ok":true}',
      'data/chart.png': new Uint8Array([1, 2, 3]),
    };
    const removeDaily = registerSkill(d, {
      path: 'reports/daily',
      frontmatter: { name: 'daily', description: "Today's report" },
      dynamic: {
        read: (path) => {
          reads.push(path);
          return files[path];
        },
        list: (dir) => {
          if (dir === '') return [{ name: 'SKILL.md' }, { name: 'data', directory: true }];
          if (dir === 'data') return [{ name: 'today.json' }, { name: 'chart.png' }, { name: '../escape' }];
          if (dir === 'boom') throw new Error('disk on fire');
          return undefined;
        },
      },
    });
    const entry = ((await call(d, 'skills/list')).skills as JsonObject[])[0];
    expect(entry).toEqual({
      uri: 'skill://reports/daily/SKILL.md',
      frontmatter: { name: 'daily', description: "Today's report" },
      resources: 'dynamic',
    });
    expect((await call(d, 'skills/get', { uri: 'skill://reports/daily/SKILL.md' })).skill).toEqual(entry);
    const manifest = await call(d, 'resources/read', { uri: 'skill://reports/daily/SKILL.md' });
    expect((manifest.contents as JsonObject[])[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: files['SKILL.md'],
    });
    const json = await call(d, 'resources/read', { uri: 'skill://reports/daily/data/today.json' });
    expect((json.contents as JsonObject[])[0]).toEqual({
      uri: 'skill://reports/daily/data/today.json',
      mimeType: 'application/json',
      text: '{"ok":true}',
    });
    const png = await call(d, 'resources/read', { uri: 'skill://reports/daily/data/chart.png' });
    expect((png.contents as JsonObject[])[0]).toMatchObject({ mimeType: 'image/png', blob: 'AQID' });
    expect(reads).toEqual(['SKILL.md', 'data/today.json', 'data/chart.png']);
    // Traversal never reaches the source.
    expect((await wireError(call(d, 'resources/read', { uri: 'skill://reports/daily/../../x' }))).code).toBe(
      ErrorCode.InvalidParams,
    );
    expect(reads).toHaveLength(3);

    const root = await call(d, 'resources/directory/read', { uri: 'skill://reports/daily' });
    expect(root.resources).toEqual([
      { uri: 'skill://reports/daily/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown' },
      { uri: 'skill://reports/daily/data', name: 'data', mimeType: 'inode/directory' },
    ]);
    const data = await call(d, 'resources/directory/read', { uri: 'skill://reports/daily/data' });
    expect((data.resources as JsonObject[]).map((r) => r.name)).toEqual(['chart.png', 'today.json']);
    const parent = await call(d, 'resources/directory/read', { uri: 'skill://reports' });
    expect(parent.resources).toEqual([
      { uri: 'skill://reports/daily', name: 'daily', mimeType: 'inode/directory' },
    ]);
    expect(
      (await wireError(call(d, 'resources/directory/read', { uri: 'skill://reports/daily/nope' }))).code,
    ).toBe(ErrorCode.InvalidParams);
    expect(
      (await wireError(call(d, 'resources/directory/read', { uri: 'skill://reports/daily/boom' }))).code,
    ).toBe(ErrorCode.InternalError);

    expect(removeDaily()).toBe(true);
    expect((await call(d, 'skills/list')).skills).toEqual([]);
    expect((await call(d, 'resources/templates/list')).resourceTemplates).toEqual([]);
    expect(
      localError(() =>
        registerSkill(d, {
          path: 'x',
          frontmatter: { name: 'y', description: 'd' },
          dynamic: { read: () => undefined },
        }),
      ).message,
    ).toMatch(/differs from the last path segment/);
  });
});
