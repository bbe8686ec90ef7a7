/** The entry points an `exports` map publishes, with the targets each condition points at. */

/** The workspace-only condition that points at TypeScript sources; consumers never set it. */
export const SOURCE_CONDITION = '@agentd/source';

export interface ExportEntry {
  /** `.` or `./sub`; the import specifier is the package name plus this without the dot. */
  subpath: string;
  /** Every file target in the entry's condition tree, as `[conditionPath, target]`. */
  targets: [string, string][];
  /** The TypeScript source behind the entry, when the source condition names one. */
  source: string | undefined;
}

export function exportEntries(exportsField: unknown): ExportEntry[] {
  if (exportsField === undefined) return [];
  const map =
    typeof exportsField === 'string' || !isSubpathMap(exportsField) ? { '.': exportsField } : exportsField;
  const entries: ExportEntry[] = [];
  for (const [subpath, value] of Object.entries(map as Record<string, unknown>)) {
    if (subpath.includes('*') || subpath === './package.json') continue;
    const targets: [string, string][] = [];
    collectTargets(value, '', targets);
    const source = targets.find(([condition]) => condition === SOURCE_CONDITION)?.[1];
    entries.push({ subpath, targets, source });
  }
  return entries;
}

function isSubpathMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.keys(value).some((key) => key.startsWith('.'));
}

function collectTargets(value: unknown, condition: string, out: [string, string][]): void {
  if (typeof value === 'string') out.push([condition, value]);
  else if (Array.isArray(value)) for (const item of value) collectTargets(item, condition, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value))
      collectTargets(inner, condition ? `${condition}.${key}` : key, out);
  }
}
