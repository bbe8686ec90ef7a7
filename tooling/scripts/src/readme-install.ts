/**
 * A README's install contract: its `npm install …` line and the example that line must be enough
 * for (the first ```ts/```js block after the line; for a README without one, the file its folder's
 * `npm start` runs).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface ReadmeInstall {
  /** The package names (and any `name@range`) of the install line, in order. */
  packages: string[];
  /** The example as written, and whether it is TypeScript (then it is stripped before it runs). */
  example: { code: string; typescript: boolean };
}

const INSTALL_LINE = /^npm install ((?:[@\w./-]+(?:@[^\s]+)? ?)+)$/m;
const CODE_BLOCK = /^```(ts|js)\n([\s\S]*?)^```$/m;

/** The install contract of the README at `path`, or undefined when it has no `npm install` line. */
export function readmeInstall(path: string): ReadmeInstall | undefined {
  const text = readFileSync(path, 'utf8');
  const install = INSTALL_LINE.exec(text);
  if (install === null) return undefined;
  const packages = (install[1] as string).trim().split(/\s+/);
  const block = CODE_BLOCK.exec(text.slice(install.index));
  if (block !== null)
    return { packages, example: { code: block[2] as string, typescript: block[1] === 'ts' } };
  const manifest = join(dirname(path), 'package.json');
  const start = existsSync(manifest)
    ? /^node (\S+\.m?js)$/.exec(JSON.parse(readFileSync(manifest, 'utf8')).scripts?.start ?? '')
    : null;
  if (start === null) throw new Error(`${path} has an install line but no example`);
  return {
    packages,
    example: { code: readFileSync(join(dirname(path), start[1] as string), 'utf8'), typescript: false },
  };
}

const MARKED = /^<!-- readme-example: ([\w-]+) -->\n```(ts|js)\n([\s\S]*?)^```$/gm;

/** The README's marked examples (`<!-- readme-example: NAME -->` right above a ```ts/```js block), by name. */
export function readmeExamples(path: string): Map<string, ReadmeInstall['example']> {
  const examples = new Map<string, ReadmeInstall['example']>();
  for (const match of readFileSync(path, 'utf8').matchAll(MARKED))
    examples.set(match[1] as string, { code: match[3] as string, typescript: match[2] === 'ts' });
  return examples;
}

/** Every package installed under `nodeModules`, nested ones included, by name. */
export function installedPackages(nodeModules: string): string[] {
  const names: string[] = [];
  const walk = (dir: string, prefix: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      if (entry.name.startsWith('@') && prefix === '') {
        walk(join(dir, entry.name), `${entry.name}/`);
        continue;
      }
      names.push(`${prefix}${entry.name}`);
      walk(join(dir, entry.name, 'node_modules'), '');
    }
  };
  walk(nodeModules, '');
  return names;
}
