/** The public names each published package's export entries offer, read by the TypeScript compiler. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { exportEntries } from './export-entries.js';
import type { PublicPackage } from './public-packages.js';

export interface EntryNames {
  /** `@scope/name` or `@scope/name/sub`. */
  specifier: string;
  names: string[];
}

/**
 * Every name (value or type, counted once) exported by each package's entries, from the TypeScript
 * sources the `@agentd/source` condition points at. An entry with no source counts as missing, so
 * a package cannot leave the count by dropping its source condition.
 */
export function publicNames(packages: readonly PublicPackage[]): EntryNames[] {
  const entries = packages.flatMap((pkg) =>
    exportEntries(pkg.manifest.exports).map((entry) => ({
      specifier: entry.subpath === '.' ? pkg.name : `${pkg.name}${entry.subpath.slice(1)}`,
      file: entry.source === undefined ? undefined : typescriptSource(resolve(pkg.dir, entry.source)),
    })),
  );
  const program = ts.createProgram(
    entries.flatMap((entry) => (entry.file === undefined ? [] : [entry.file])),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['@agentd/source'],
      // A plain JavaScript entry (a worker script) is read too; it offers what it exports.
      allowJs: true,
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  return entries.map(({ specifier, file }) => {
    const source = file === undefined ? undefined : program.getSourceFile(file);
    const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (source === undefined) return { specifier, names: [`<no TypeScript source for ${specifier}>`] };
    // A source file that exports nothing has no module symbol.
    if (symbol === undefined) return { specifier, names: [] };
    return {
      specifier,
      names: checker
        .getExportsOfModule(symbol)
        .map((s) => s.getName())
        .sort(),
    };
  });
}

/** A source condition may name `x.js` for the `x.ts` beside it, as TypeScript imports do. */
function typescriptSource(file: string): string {
  const ts = file.replace(/\.js$/, '.ts');
  return ts !== file && existsSync(ts) ? ts : file;
}
