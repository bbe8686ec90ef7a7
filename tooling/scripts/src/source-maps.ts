/**
 * Checks that the source maps of an unpacked package resolve inside the package: every
 * `sourceMappingURL` names a file that is there, and every source a map lists is either shipped
 * or carried in `sourcesContent`. A map pointing at files the tarball lacks is worse than none
 * (debuggers and editors show "source not found").
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

interface SourceMap {
  sources?: unknown;
  sourceRoot?: unknown;
  sourcesContent?: unknown;
}

const MAPPING_URL = /\/\/# sourceMappingURL=(\S+)\s*$/;

export function sourceMapProblems(packageDir: string): string[] {
  const problems: string[] = [];
  const files = readdirSync(packageDir, { recursive: true, encoding: 'utf8' }).filter(
    (file) => !file.split(/[\\/]/).includes('node_modules'),
  );
  const inside = (absolute: string) => {
    const rel = relative(packageDir, absolute);
    return !rel.startsWith('..') && existsSync(absolute);
  };
  for (const file of files) {
    const path = join(packageDir, file);
    if (/\.(?:[cm]?js|d\.[cm]?ts)$/.test(file)) {
      const url = MAPPING_URL.exec(readFileSync(path, 'utf8'))?.[1];
      if (url !== undefined && !url.startsWith('data:') && !inside(resolve(dirname(path), url)))
        problems.push(`${file}: sourceMappingURL ${url} is not in the package`);
    }
    if (!file.endsWith('.map')) continue;
    let map: SourceMap;
    try {
      map = JSON.parse(readFileSync(path, 'utf8')) as SourceMap;
    } catch {
      problems.push(`${file}: not JSON`);
      continue;
    }
    if (!Array.isArray(map.sources) || map.sources.length === 0) {
      problems.push(`${file}: no sources`);
      continue;
    }
    const root = typeof map.sourceRoot === 'string' ? map.sourceRoot : '';
    const contents = Array.isArray(map.sourcesContent) ? map.sourcesContent : [];
    map.sources.forEach((source, i) => {
      if (typeof contents[i] === 'string') return;
      if (typeof source !== 'string' || !inside(resolve(dirname(path), root, source)))
        problems.push(`${file}: source ${String(source)} is neither shipped nor in sourcesContent`);
    });
  }
  return problems;
}
