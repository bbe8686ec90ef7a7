/** The filter pattern language: `*`, `prefix*`, `*suffix` and exact names. */

export type NameMatcher = (name: string) => boolean;

/** Legacy names like `command:RunPlaybook` match as `command_RunPlaybook` (first `:` only). */
export function normalizeToolName(name: string): string {
  return name.replace(':', '_');
}

export function compilePattern(pattern: string, normalize: (s: string) => string = (s) => s): NameMatcher {
  const text = normalize(pattern.trim());
  if (text === '*') return () => true;
  if (text.length > 1 && text.endsWith('*') && !text.slice(0, -1).includes('*')) {
    const prefix = text.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  if (text.length > 1 && text.startsWith('*') && !text.slice(1).includes('*')) {
    const suffix = text.slice(1);
    return (name) => name.endsWith(suffix);
  }
  return (name) => name === text;
}

/** A list of patterns; `undefined` when the list is empty (no constraint). */
export function compilePatterns(
  patterns: readonly string[] | undefined,
  normalize?: (s: string) => string,
): NameMatcher | undefined {
  const matchers = (patterns ?? []).filter((p) => p.trim() !== '').map((p) => compilePattern(p, normalize));
  if (matchers.length === 0) return undefined;
  return (name) => matchers.some((match) => match(name));
}
