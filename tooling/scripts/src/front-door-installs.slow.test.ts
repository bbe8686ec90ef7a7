/**
 * The front door, as a newcomer meets it: @agentd/dispatch packed as it would be published and
 * installed with npm from its README's line (`npm install @agentd/dispatch zod`; skills from
 * @agentd/skills' README line). Every marked front-door example of the dispatch README and its
 * docs (tools, operations, resources, templates, prompts; MCP Apps), and of the skills README, is run as written (TypeScript
 * stripped by esbuild) and driven by the official SDK client over stdio. The quickstart bundles
 * with the Code Mode README's esbuild options with none of the optional peers installed, and the
 * bundle answers from a folder with no node_modules above it. Needs `turbo run build` first.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installManifest, NPM_INSTALL, packWorkspace, runChecked, scrubbedEnv } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { build, transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeExamples, readmeInstall } from './readme-install.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DISPATCH_README = join(root, 'packages/dispatch/README.md');
const SKILLS_README = join(root, 'packages/skills/README.md');
/** The README's marked examples, those of the docs it links (MCP Apps), and the skills README's. */
const examples = new Map(
  [
    ...['README.md', 'docs/apps.md'].map((file) => join(root, 'packages/dispatch', file)),
    SKILLS_README,
  ].flatMap((file) => [...readmeExamples(file)]),
);
const installLine = readmeInstall(DISPATCH_README)?.packages ?? [];
const skillsLine = readmeInstall(SKILLS_README)?.packages ?? [];
/** The versions the workspace pins (the registry's copies of the same). */
const PINNED: Record<string, string> = { zod: 'zod@4.6.7' };

let scratch = '';
/** Projects: the dispatch README's install line, and the skills README's. */
let toolsOnly = '';
let skills = '';
const clients: Client[] = [];

async function install(name: string, local: Record<string, string>, line: string[]): Promise<string> {
  const project = join(scratch, name);
  await mkdir(project);
  const deps = line.map((n) => (local[n] !== undefined ? n : (PINNED[n] ?? n)));
  const manifest = JSON.parse(installManifest(local, deps));
  await writeFile(join(project, 'package.json'), JSON.stringify({ ...manifest, type: 'module' }, null, 2));
  await runChecked('npm', NPM_INSTALL, project);
  return project;
}

beforeAll(async () => {
  expect(installLine).toEqual(['@agentd/dispatch', 'zod']);
  expect(skillsLine).toEqual(['@agentd/dispatch', '@agentd/skills']);
  scratch = await mkdtemp(join(tmpdir(), 'agentd-front-door-'));
  await mkdir(join(scratch, 'tarballs'));
  const local = await packWorkspace(['@agentd/dispatch', '@agentd/skills'], join(scratch, 'tarballs'));
  [toolsOnly, skills] = await Promise.all([
    install('tools-only', local, installLine),
    install('skills', local, skillsLine),
  ]);
}, 600_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  if (scratch !== '' && process.env.AGENTD_KEEP_PACK !== '1')
    await rm(scratch, { recursive: true, force: true });
});

/** Writes the marked example into `project` as it is written (types stripped); answers its path. */
async function writeExample(name: string, project: string): Promise<string> {
  const example = examples.get(name);
  if (example === undefined) throw new Error(`the dispatch and skills READMEs have no example ${name}`);
  const code = example.typescript
    ? (await transform(example.code, { loader: 'ts', format: 'esm' })).code
    : example.code;
  const file = join(project, `${name}.mjs`);
  await writeFile(file, code);
  return file;
}

/** The official SDK client over stdio to `node file` run in `cwd`; the server's stderr is in the error. */
async function connect(file: string, cwd: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [file],
    cwd,
    env: scrubbedEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += String(chunk);
  });
  const client = new Client({ name: 'front-door', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${file} did not answer: ${(error as Error).message}\n${stderr}`);
  }
  clients.push(client);
  return client;
}

describe('the front door of @agentd/dispatch, installed from its README line', () => {
  it('marks every front-door example of the README and its docs', () => {
    expect([...examples.keys()]).toEqual(expect.arrayContaining(['server', 'mcp-apps', 'skills']));
  });

  it('the server example: tools, an operation, resources, a template and a prompt', async () => {
    const client = await connect(await writeExample('server', toolsOnly), toolsOnly);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['greet', 'query_servers']);
    expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    expect(await client.callTool({ name: 'query_servers', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: '["alpha"]' }],
    });
    expect(await client.readResource({ uri: 'docs://readme' })).toMatchObject({
      contents: [{ uri: 'docs://readme', text: 'Read me first.' }],
    });
    expect(await client.readResource({ uri: 'notes://42' })).toMatchObject({
      contents: [{ text: 'Note 42' }],
    });
    const prompt = await client.getPrompt({ name: 'review', arguments: { topic: 'the plan' } });
    expect(JSON.stringify(prompt.messages)).toContain('Review the plan.');
  }, 60_000);

  it('the MCP Apps example: the view is listed and read, the tool links it and answers', async () => {
    const client = await connect(await writeExample('mcp-apps', toolsOnly), toolsOnly);
    const view = 'ui://weather/view.html';
    expect((await client.listResources()).resources).toEqual([
      expect.objectContaining({ uri: view, mimeType: 'text/html;profile=mcp-app' }),
    ]);
    expect(await client.readResource({ uri: view })).toMatchObject({
      contents: [{ uri: view, _meta: { ui: { prefersBorder: true } } }],
    });
    const { tools } = await client.listTools();
    expect(tools[0]).toMatchObject({ name: 'get_weather', _meta: { ui: { resourceUri: view } } });
    expect(await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })).toMatchObject({
      structuredContent: { city: 'Oslo', celsius: 21 },
    });
  }, 60_000);

  it('the skills example: the skill in code and the folder of skills are served', async () => {
    await mkdir(join(skills, 'skills', 'reading'), { recursive: true });
    await writeFile(
      join(skills, 'skills', 'reading', 'SKILL.md'),
      '---\nname: reading\ndescription: How to read\n---\n# Reading\n',
    );
    const client = await connect(await writeExample('skills', skills), skills);
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'skill://pdf-processing/SKILL.md',
        'skill://pdf-processing/templates/invoice.md',
        'skill://reading/SKILL.md',
      ]),
    );
    expect(await client.readResource({ uri: 'skill://reading/SKILL.md' })).toMatchObject({
      contents: [{ text: expect.stringContaining('# Reading') }],
    });
  }, 60_000);

  it('the skills install brings what SKILL.md needs; the tools-only install stays without it', () => {
    expect(existsSync(join(skills, 'node_modules', 'yaml'))).toBe(true);
    for (const name of ['@agentd/skills', 'yaml'])
      expect(existsSync(join(toolsOnly, 'node_modules', name)), name).toBe(false);
  });

  it("bundles the quickstart with the Code Mode README's esbuild options, no optional peer installed", async () => {
    const recipe = await readFile(join(root, 'packages/codemode/README.md'), 'utf8');
    const options = /^await build\((\{[\s\S]*?^\})\);$/m.exec(recipe)?.[1];
    if (options === undefined) throw new Error("the Code Mode README's recipe has no build({...}) call");
    // The recipe's own options, as written; only the entry (no Code Mode here) and the folders differ.
    const recipeOptions = new Function(`return (${options});`)() as Parameters<typeof build>[0];
    const quickstart = readmeInstall(join(root, 'README.md'))?.example;
    if (quickstart === undefined) throw new Error('README.md has no quickstart');
    const code = quickstart.typescript
      ? (await transform(quickstart.code, { loader: 'ts', format: 'esm' })).code
      : quickstart.code;
    await writeFile(join(toolsOnly, 'quickstart.mjs'), code);
    for (const peer of ['ajv', 'ajv-formats', 'yaml', '@cfworker/json-schema', '@agentd/codemode'])
      expect(existsSync(join(toolsOnly, 'node_modules', peer)), peer).toBe(false);
    const out = join(scratch, 'bundle');
    const result = await build({
      ...recipeOptions,
      entryPoints: { server: 'quickstart.mjs' },
      absWorkingDir: toolsOnly,
      outdir: out,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    for (let dir = out; dir !== dirname(dir); dir = dirname(dir))
      expect(existsSync(join(dir, 'node_modules')), `${dir}/node_modules`).toBe(false);
    const client = await connect(join(out, 'server.js'), out);
    expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
  }, 60_000);
});
