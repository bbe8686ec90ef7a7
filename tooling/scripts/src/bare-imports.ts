/** Finds the packages a built JavaScript file imports, using TypeScript's import scanner. */
import { isBuiltin } from 'node:module';
import ts from 'typescript';

/**
 * The package names (not builtins, not relative paths) that `code` imports, sorted and unique:
 * static imports and re-exports, side-effect imports, `import('literal')` and `require('literal')`.
 * The scanner tokenises, so words in strings and comments are not mistaken for imports.
 */
export function importedPackages(code: string): string[] {
  const { importedFiles } = ts.preProcessFile(code, true, true);
  const names = new Set<string>();
  for (const { fileName } of importedFiles) {
    const name = packageName(fileName);
    if (name !== undefined) names.add(name);
  }
  return [...names].sort();
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`; undefined for paths, URLs and builtins. */
export function packageName(specifier: string): string | undefined {
  if (/^[./]/.test(specifier) || /^[a-z]+:/i.test(specifier) || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
