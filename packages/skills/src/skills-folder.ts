/**
 * Serves a folder of skills from disk: every directory under the root holding a SKILL.md is a
 * skill at `skill://<its path>`. Contents are snapshotted at each scan (so digests always match
 * what resources/read returns); `fs.watch` triggers a debounced rescan, and only skills whose
 * entries changed are replaced (the dispatcher then reports a `resources` surface change).
 * Symlinks resolving outside the root, files over 16 MiB and skills over the limits are refused.
 */
import { type FSWatcher, watch } from 'node:fs';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { SKILL_LIMITS, SKILL_MANIFEST } from '@agentd/lifecycle/skills';
import type { Logger } from '@agentd/rpc-frame';
import { skillsError } from './local-errors.js';
import { buildSkill, type SkillDefinition } from './skill-build.js';
import { type SkillsHost, skillsOf } from './skills-host.js';

export interface SkillsFolderOptions {
  /** Watch the folder and rescan on change (default true). */
  watch?: boolean;
  /** Quiet period after the last file-system event before a rescan (default 100 ms). */
  debounceMs?: number;
  /** A `<skill-path>` prefix for every skill of the folder, e.g. `acme` → `skill://acme/<dir>/SKILL.md`. */
  prefix?: string;
  /** Called after a rescan changed skills, with the SKILL.md URIs added, changed or removed. */
  onChange?: (uris: readonly string[]) => void;
  /** Rescan problems (the first scan throws them instead). Default the server's (the Dispatcher's) logger. */
  logger?: Logger;
}

export interface SkillsFolder {
  /** The folder's real path. */
  readonly root: string;
  /** SKILL.md URIs served from the folder now, sorted. */
  readonly skills: readonly string[];
  /** Scans now (also what the watcher does); resolves when the dispatcher serves the result. */
  rescan(): Promise<void>;
  /** Stops watching and removes the folder's skills. */
  close(): void;
}

interface FoundFile {
  readonly real: string;
  readonly size: number;
}

interface Scan {
  /** Path inside the root (`/`-separated) → file. */
  readonly files: Map<string, FoundFile>;
  /** Directories (paths inside the root) holding a SKILL.md. */
  readonly skillDirs: string[];
  readonly problems: Problem[];
}

/** Something refused during a scan, at a path inside the root. */
interface Problem {
  readonly path: string;
  readonly message: string;
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

async function scanFolder(root: string): Promise<Scan> {
  const files = new Map<string, FoundFile>();
  const skillDirs: string[] = [];
  const problems: Problem[] = [];
  const walk = async (dir: string, rel: string, ancestors: ReadonlySet<string>): Promise<void> => {
    let names: string[];
    try {
      names = (await readdir(dir)).sort();
    } catch (error) {
      if (isMissing(error)) return; // removed while scanning: the watcher rescans
      throw error;
    }
    for (const name of names) {
      // Dotfiles (.git, .DS_Store) are no part of a served skill.
      if (name.startsWith('.')) continue;
      const path = join(dir, name);
      const relPath = rel === '' ? name : `${rel}/${name}`;
      let real: string | undefined = path;
      let info: Awaited<ReturnType<typeof stat>>;
      try {
        if ((await lstat(path)).isSymbolicLink()) {
          real = await realpath(path).catch((error: unknown) => {
            if (isMissing(error)) return undefined;
            throw error;
          });
          if (real === undefined) {
            problems.push({ path: relPath, message: `symlink ${relPath} points nowhere` });
            continue;
          }
          if (!within(root, real)) {
            problems.push({
              path: relPath,
              message: `symlink ${relPath} resolves outside the skills folder`,
            });
            continue;
          }
        }
        info = await stat(real);
      } catch (error) {
        if (isMissing(error)) continue;
        throw error;
      }
      if (info.isDirectory()) {
        if (ancestors.has(real)) {
          problems.push({ path: relPath, message: `symlink ${relPath} loops back to a parent directory` });
          continue;
        }
        await walk(real, relPath, new Set([...ancestors, real]));
      } else if (info.isFile()) {
        if (info.size > SKILL_LIMITS.maxTotalBytes) {
          problems.push({
            path: relPath,
            message: `file ${relPath} is ${info.size} bytes, over the 16 MiB per-skill limit`,
          });
          continue;
        }
        files.set(relPath, { real, size: info.size });
        if (name === SKILL_MANIFEST) {
          if (rel === '')
            problems.push({
              path: name,
              message: `${SKILL_MANIFEST} at the folder root: each skill is a subdirectory`,
            });
          else skillDirs.push(rel);
        }
      }
    }
  };
  await walk(root, '', new Set([root]));
  return { files, skillDirs, problems };
}

/** The problems inside the skill at `dir`. */
function problemsUnder(problems: readonly Problem[], dir: string): Problem[] {
  return problems.filter((problem) => problem.path.startsWith(`${dir}/`));
}

/**
 * Serves every skill under `folder` (each directory holding a SKILL.md) on an McpServer or a
 * Dispatcher, watched and rescanned when it changes; closed with the server.
 */
export async function serveSkillsFolder(
  host: SkillsHost,
  folder: string,
  options: SkillsFolderOptions = {},
): Promise<SkillsFolder> {
  const provider = skillsOf(host, 'serveSkillsFolder');
  const debounceMs = options.debounceMs ?? 100;
  if (!Number.isFinite(debounceMs) || debounceMs < 0)
    throw skillsError('invalid_option', 'debounceMs must be a non-negative number');
  const prefix = options.prefix;
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix === '' || prefix.endsWith('/')))
    throw skillsError('invalid_option', 'prefix must be a non-empty skill path without a trailing slash');
  const logger = options.logger ?? provider.host.logger;
  let root: string;
  try {
    root = await realpath(folder);
    if (!(await stat(root)).isDirectory()) throw skillsError('invalid_option', 'not a directory');
  } catch (error) {
    throw skillsError('invalid_option', `skills folder ${folder} is not a readable directory`, {
      cause: error,
    });
  }
  const registry = provider.registry;
  registry.declare();
  const served = new Map<string, string>(); // SKILL.md URI → its entry as JSON

  const load = async (strict: boolean): Promise<void> => {
    const scan = await scanFolder(root);
    const report = (problem: string) => {
      if (!strict) logger.error('skills folder: skill withheld', { folder: root, problem });
    };
    const refused: string[] = [];
    const orphans = scan.problems.filter(
      (problem) => !scan.skillDirs.some((dir) => problem.path.startsWith(`${dir}/`)),
    );
    refused.push(...orphans.map((problem) => problem.message));
    const contents = new Map<string, Uint8Array>();
    const next = new Map<string, { definition: SkillDefinition; canonical: string }>();
    for (const dir of scan.skillDirs) {
      const own = problemsUnder(scan.problems, dir);
      if (own.length > 0) {
        refused.push(...own.map((problem) => `skill ${dir}: ${problem.message}`));
        continue;
      }
      const files: Record<string, Uint8Array> = {};
      let size = 0;
      for (const [relPath, file] of scan.files) {
        if (!relPath.startsWith(`${dir}/`)) continue;
        size += file.size;
        if (size > SKILL_LIMITS.maxTotalBytes) break;
        let bytes = contents.get(relPath);
        if (bytes === undefined) {
          bytes = await readFile(file.real).catch((error: unknown) => {
            if (isMissing(error)) return new Uint8Array(0);
            throw error;
          });
          contents.set(relPath, bytes);
        }
        files[relPath.slice(dir.length + 1)] = bytes;
      }
      const definition = { path: prefix === undefined ? dir : `${prefix}/${dir}`, files };
      try {
        if (size > SKILL_LIMITS.maxTotalBytes)
          throw skillsError(
            'invalid_definition',
            `skill ${dir}: files total more than 16 MiB, the per-skill limit`,
          );
        const built = buildSkill(definition);
        next.set(built.uri, { definition, canonical: JSON.stringify(built.entry) });
      } catch (error) {
        refused.push((error as Error).message);
      }
    }
    if (strict && refused.length > 0) {
      throw skillsError('invalid_definition', `skills folder ${root}: ${refused.join('; ')}`);
    }
    refused.forEach(report);
    const changed = [...served.keys()].filter((uri) => next.get(uri)?.canonical !== served.get(uri));
    const added = [...next.keys()].filter((uri) => !served.has(uri));
    // Remove every outgoing version first: a nested skill and its encloser share files.
    for (const uri of changed) {
      registry.remove(uri);
      served.delete(uri);
    }
    for (const uri of [...changed, ...added]) {
      const incoming = next.get(uri);
      if (!incoming) continue;
      try {
        registry.register(incoming.definition);
        served.set(uri, incoming.canonical);
      } catch (error) {
        if (strict) throw error;
        report((error as Error).message);
      }
    }
    const touched = [...new Set([...changed, ...added])].sort();
    if (!strict && touched.length > 0) options.onChange?.(touched);
  };

  await load(true);

  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const rescan = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await load(false).catch((error: unknown) => {
          logger.error('skills folder rescan failed', { folder: root, error: String(error) });
        });
      } while (again && !closed);
      running = undefined;
    })();
    return running;
  };

  let watcher: FSWatcher | undefined;
  if (options.watch ?? true) {
    watcher = watch(root, { recursive: true, persistent: false }, () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        void rescan();
      }, debounceMs);
    });
    watcher.on('error', (error) =>
      logger.error('skills folder watch failed', { folder: root, error: String(error) }),
    );
  }

  const close = (): void => {
    if (closed) return;
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    watcher?.close();
    for (const uri of served.keys()) registry.remove(uri);
    served.clear();
    unhook();
  };
  const unhook = registry.onClose(close);

  return {
    root,
    get skills() {
      return [...served.keys()].sort();
    },
    rescan,
    close,
  };
}
