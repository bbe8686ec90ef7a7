/**
 * The pack check: every public package, packed as it would be published, carries its license,
 * metadata and resolvable source maps, passes publint and attw, installs into a project outside
 * the workspace, imports under plain Node and type-checks under tsc (NodeNext, strict).
 * Needs `turbo run build` first (the test command runs it); packages are discovered, not listed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importedPackages } from './bare-imports.js';
import { declaredValueExports } from './declared-exports.js';
import { enginesExcluding } from './dependency-engines.js';
import { attwFindings, publintFindings } from './ecosystem-checks.js';
import { type ExportEntry, exportEntries, SOURCE_CONDITION } from './export-entries.js';
import { type PackageManifest, type PublicPackage, publicPackages } from './public-packages.js';
import { metadataProblems, OLDEST_NODE_MAJOR } from './release-metadata.js';
import { type CommandResult, runChecked, runCommand } from './run-command.js';
import { sourceMapProblems } from './source-maps.js';
import { typecheckConsumer } from './typecheck-consumer.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const packages = publicPackages(root);
const license = readFileSync(join(root, 'LICENSE'), 'utf8');
/**
 * The current TypeScript release, for a consumer's own `tsc`: from TypeScript 6 on,
 * `compilerOptions.types` defaults to `[]`, which the READMEs tell consumers about.
 */
const CURRENT_TYPESCRIPT = '7.0.2';
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const pnpmVersion = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager;

interface Packed {
  pkg: PublicPackage;
  tarball: string;
  /** The tarball extracted (its `package/` directory). */
  unpacked: string;
  files: Set<string>;
  manifest: PackageManifest;
  entries: ExportEntry[];
}

interface ImportOutcome {
  ok: boolean;
  names: string[];
  error?: string;
}

let scratch = '';
let project = '';
const packed = new Map<string, Packed>();
const imported = new Map<string, ImportOutcome>();
let declared = new Map<string, string[]>();
let typecheckErrors: string[] = ['not run'];
const currentTsc = new Map<string, CommandResult>();
const ecosystem = new Map<string, { publint: string[]; attw: string[] }>();

function specifier(name: string, subpath: string): string {
  return subpath === '.' ? name : `${name}${subpath.slice(1)}`;
}

/** Every JavaScript file of an installed package, outside its own node_modules. */
function javascriptFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(?:c|m)?js$/.test(file) && !file.split(/[\\/]/).includes('node_modules'))
    .map((file) => join(dir, file));
}

async function pnpmBinary(): Promise<string> {
  const out = await runChecked('npx', ['-y', '-p', pnpmVersion, '-c', 'command -v pnpm'], { cwd: tmpdir() });
  return out.trim();
}

async function pack(pnpm: string, pkg: PublicPackage, destination: string): Promise<Packed> {
  const out = await runChecked(pnpm, ['pack', '--json', '--pack-destination', destination], { cwd: pkg.dir });
  const report = JSON.parse(out) as { filename: string; files: { path: string }[] };
  const tarball = resolve(pkg.dir, report.filename);
  const into = join(destination, 'unpacked', pkg.name.replace(/[@/]/g, '_'));
  await mkdir(into, { recursive: true });
  await runChecked('tar', ['-xzf', tarball, '-C', into], { cwd: destination });
  const unpacked = join(into, 'package');
  const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as PackageManifest;
  const files = new Set(report.files.map((f) => f.path.replace(/^\.\//, '')));
  return { pkg, tarball, unpacked, files, manifest, entries: exportEntries(manifest.exports) };
}

/** One Node process imports every entry point and reports its export names, or why it failed. */
const importScript = `
const specifiers = JSON.parse(process.argv[2]);
const out = {};
for (const s of specifiers) {
  try { out[s] = { ok: true, names: Object.keys(await import(s)).sort() }; }
  catch (error) { out[s] = { ok: false, names: [], error: String(error && error.stack || error) }; }
}
process.stdout.write(JSON.stringify(out));
`;

/** A typed tool as a user writes it: handler types inferred from a JSON Schema literal, wrong use refused. */
const typedToolConsumer = [
  `import { Dispatcher as TypedDispatcher } from '@agentd/dispatch';`,
  `import { createTestClient } from '@agentd/dispatch/testing';`,
  `const typed = new TypedDispatcher();`,
  `const addSchema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } as const;`,
  `typed.registerTool({ name: 'add', description: 'adds', inputSchema: addSchema, outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }, handler: ({ a, b }) => ({ sum: a + b }) });`,
  `// @ts-expect-error a is a number`,
  `typed.registerTool({ name: 'bad', description: 'bad', inputSchema: addSchema, handler: ({ a }) => a.toUpperCase() });`,
  `export const typedClient = createTestClient(typed, { era: 'legacy' }).then((c) => c.callTool('add', { a: 1, b: 2 }));`,
];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agentd-pack-'));
  const tarballs = join(scratch, 'tarballs');
  project = join(scratch, 'project');
  await mkdir(tarballs);
  await mkdir(project);

  const pnpm = await pnpmBinary();
  for (const result of await Promise.all(packages.map((pkg) => pack(pnpm, pkg, tarballs)))) {
    packed.set(result.pkg.name, result);
  }

  // The checkers are independent processes per tarball: run them while npm installs.
  const checkers = Promise.all(
    [...packed.values()].map(async (p) => {
      const [publint, attw] = await Promise.all([publintFindings(p.tarball), attwFindings(p.tarball)]);
      ecosystem.set(p.pkg.name, { publint, attw });
    }),
  );

  // Every @agentd/* name maps to its tarball, also where one package depends on another.
  const local = Object.fromEntries([...packed.values()].map((p) => [p.pkg.name, `file:${p.tarball}`]));
  const manifest = {
    name: 'agentd-pack-check',
    private: true,
    type: 'module',
    dependencies: local,
    devDependencies: {
      typescript: CURRENT_TYPESCRIPT,
      '@types/node': rootManifest.devDependencies['@types/node'] ?? 'missing',
    },
    overrides: local,
  };
  await writeFile(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await runChecked(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'],
    { cwd: project },
  );

  const specifiers = [...packed.values()].flatMap((p) =>
    p.entries.map((e) => specifier(p.pkg.name, e.subpath)),
  );
  await writeFile(join(project, 'check-imports.mjs'), importScript);
  const result = await runChecked(process.execPath, ['check-imports.mjs', JSON.stringify(specifiers)], {
    cwd: project,
  });
  for (const [spec, outcome] of Object.entries(JSON.parse(result) as Record<string, ImportOutcome>)) {
    imported.set(spec, outcome);
  }

  // The consumer touches every runtime export through the types, so .d.ts and .js must agree.
  const lines: string[] = [];
  const uses: string[] = [];
  specifiers.forEach((spec, i) => {
    lines.push(`import * as m${i} from '${spec}';`);
    for (const name of imported.get(spec)?.names ?? []) {
      uses.push(/^[A-Za-z_$][\w$]*$/.test(name) ? `m${i}.${name}` : `m${i}[${JSON.stringify(name)}]`);
    }
  });
  lines.push(`export const used: unknown[] = [${uses.join(', ')}];`, ...typedToolConsumer);
  await writeFile(join(project, 'consumer.ts'), `${lines.join('\n')}\n`);
  typecheckErrors = typecheckConsumer(join(project, 'consumer.ts'), {
    scope: '@agentd',
    typeRoots: [join(root, 'node_modules/@types')],
  });
  for (const [name, types] of [
    ['tsconfig.json', ['node']],
    ['tsconfig.no-types.json', undefined],
  ] as const) {
    const compilerOptions = { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, types };
    await writeFile(join(project, name), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    currentTsc.set(
      name,
      await runCommand(join(project, 'node_modules/.bin/tsc'), ['-p', name], { cwd: project }),
    );
  }

  const sources = [...packed.values()].flatMap((p) =>
    p.entries.flatMap((e) => (e.source === undefined ? [] : [join(p.pkg.dir, e.source)])),
  );
  declared = declaredValueExports(sources.filter((file) => existsSync(file)));
  await checkers;
}, 600_000);

afterAll(async () => {
  if (scratch !== '' && process.env.AGENTD_KEEP_PACK !== '1')
    await rm(scratch, { recursive: true, force: true });
});

describe('pack check', () => {
  it('finds the public packages', () => {
    expect(packages.length).toBeGreaterThan(0);
  });

  describe.each(packages.map((pkg) => [pkg.name, pkg] as const))('%s', (name, pkg) => {
    it('packs with a README, no workspace: ranges and every published target present', () => {
      const p = packed.get(name);
      expect(p, `${name} was not packed`).toBeDefined();
      if (p === undefined) return;
      expect(p.files.has('README.md'), `${name}: README.md missing from the tarball`).toBe(true);
      expect(JSON.stringify(p.manifest)).not.toContain('workspace:');
      const bins =
        typeof p.manifest.bin === 'string' ? [p.manifest.bin] : Object.values(p.manifest.bin ?? {});
      // A package offers modules (exports beyond ./package.json) or commands (bin), or both.
      const modules = p.entries.filter((e) => e.subpath !== './package.json');
      expect(modules.length + bins.length, `${name}: no exports and no bin`).toBeGreaterThan(0);
      const missing = p.entries.flatMap((e) =>
        e.targets
          .filter(([condition]) => condition !== SOURCE_CONDITION)
          .map(([, target]) => target.replace(/^\.\//, ''))
          .filter((target) => !p.files.has(target)),
      );
      missing.push(...bins.map((b) => b.replace(/^\.\//, '')).filter((b) => !p.files.has(b)));
      expect(missing, `${name}: files the manifest points at but the tarball lacks (was it built?)`).toEqual(
        [],
      );
    });

    it('carries the MIT LICENSE, repository, homepage, bugs, keywords and an engines range for Node 20', () => {
      const p = packed.get(name);
      if (p === undefined) throw new Error(`${name} was not packed`);
      expect(p.files.has('LICENSE'), `${name}: LICENSE missing from the tarball`).toBe(true);
      expect(readFileSync(join(p.unpacked, 'LICENSE'), 'utf8')).toBe(license);
      expect(metadataProblems(p.manifest, pkg.relativeDir), `${name}: manifest metadata`).toEqual([]);
    });

    it('ships no tests, type tests, benchmarks or test support', () => {
      const p = packed.get(name);
      if (p === undefined) throw new Error(`${name} was not packed`);
      const internal = [...p.files].filter((file) =>
        /(?:\.test(?:-d)?\.[cm]?[jt]s|\.bench\.[cm]?[jt]s)$|(?:^|\/)test-support\//.test(file),
      );
      expect(internal, `${name}: files for the workspace only`).toEqual([]);
    });

    it('ships source maps that resolve inside the tarball', () => {
      const p = packed.get(name);
      if (p === undefined) throw new Error(`${name} was not packed`);
      expect(sourceMapProblems(p.unpacked), `${name}: source maps`).toEqual([]);
    });

    it('passes publint with no error or warning', () => {
      expect(ecosystem.get(name)?.publint, `${name}: publint`).toEqual([]);
    });

    it('passes Are The Types Wrong (esm-only profile, see ecosystem-checks.ts) with no problem', () => {
      expect(ecosystem.get(name)?.attw, `${name}: attw`).toEqual([]);
    });

    it('imports at runtime only what its dependencies (not devDependencies) provide', () => {
      const p = packed.get(name);
      if (p === undefined) throw new Error(`${name} was not packed`);
      const allowed = new Set([
        name,
        ...Object.keys(p.manifest.dependencies ?? {}),
        ...Object.keys(p.manifest.peerDependencies ?? {}),
        ...Object.keys(p.manifest.optionalDependencies ?? {}),
      ]);
      const installed = join(project, 'node_modules', name);
      const undeclared = javascriptFiles(installed).flatMap((file) =>
        importedPackages(readFileSync(file, 'utf8'))
          .filter((dep) => !allowed.has(dep))
          .map((dep) => `${file.slice(installed.length + 1)} imports ${dep}`),
      );
      expect(undeclared, `${name}: imports of packages it does not depend on`).toEqual([]);
    });

    it('imports under plain Node with every runtime export its entry file declares', () => {
      const p = packed.get(name);
      if (p === undefined) throw new Error(`${name} was not packed`);
      for (const entry of p.entries) {
        const spec = specifier(name, entry.subpath);
        const outcome = imported.get(spec);
        expect(outcome?.error, `import('${spec}') failed`).toBeUndefined();
        expect(outcome?.ok).toBe(true);
        if (entry.source === undefined) continue;
        const expected = declared.get(join(pkg.dir, entry.source)) ?? [];
        const missing = expected.filter((n) => !outcome?.names.includes(n));
        expect(missing, `${spec}: exports declared in ${entry.source} but absent at runtime`).toEqual([]);
      }
    });
  });

  it(`installs only dependencies that run on the oldest Node ${OLDEST_NODE_MAJOR} the packages admit (their engines.node)`, () => {
    // The consumer installs every package together, so its floor is the highest of theirs.
    const floors = [...packed.values()].map(
      (p) => semver.minVersion(p.manifest.engines?.node ?? '') ?? undefined,
    );
    const floor = floors.reduce<semver.SemVer>(
      (high, v) => (v !== undefined && semver.gt(v, high) ? v : high),
      new semver.SemVer(`${OLDEST_NODE_MAJOR}.0.0`),
    );
    expect(floor.major).toBe(OLDEST_NODE_MAJOR);
    expect(enginesExcluding(join(project, 'node_modules'), `>=${floor.version}`)).toEqual([]);
  });

  it(`type-checks the same consumer with its own TypeScript ${CURRENT_TYPESCRIPT} and "types": ["node"], as the READMEs say`, () => {
    const withTypes = currentTsc.get('tsconfig.json');
    expect(withTypes?.stdout, 'tsc -p tsconfig.json').toBe('');
    expect(withTypes?.code).toBe(0);
    // Without the setting TypeScript >= 6 finds no Node types: the READMEs' advice is needed.
    const without = currentTsc.get('tsconfig.no-types.json');
    expect(without?.code).not.toBe(0);
    expect(without?.stdout).toContain("Cannot find name 'node:");
  });

  it('type-checks a consumer of every package with TypeScript (NodeNext, strict, .d.ts checked)', () => {
    expect(typecheckErrors).toEqual([]);
  });
});
