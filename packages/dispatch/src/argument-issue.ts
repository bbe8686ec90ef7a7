/** One shape for schema failures, whichever validator found them: argument path, rule, words. */

/** One reason arguments failed their schema: which argument (JSON pointer-ish path), which rule, in words. */
export interface ArgumentIssue {
  /** `''` for the arguments object itself, else the dotted path, e.g. `user.email` or `items[2]`. */
  argument: string;
  /** The JSON Schema keyword that failed: `required`, `type`, `enum`, `additionalProperties`, … */
  rule: string;
  message: string;
}

export function requiredIssue(base: string, property: string): ArgumentIssue {
  const argument = joinPath(base, property);
  return { argument, rule: 'required', message: `argument \`${argument}\` is required` };
}

export function notAllowedIssue(base: string, property: string): ArgumentIssue {
  const argument = joinPath(base, property);
  return { argument, rule: 'additionalProperties', message: `argument \`${argument}\` is not allowed` };
}

export function enumIssue(base: string, allowed: readonly unknown[]): ArgumentIssue {
  const list = allowed.map((v) => JSON.stringify(v)).join(', ');
  return { argument: base, rule: 'enum', message: `${subject(base)} must be one of ${list}` };
}

export function subject(path: string): string {
  return path === '' ? 'arguments' : `argument \`${path}\``;
}

function joinPath(base: string, property: string): string {
  return base === '' ? property : `${base}.${property}`;
}

/** `/user/items/2` → `user.items[2]`. */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}

/** Drops repeats (allErrors reports some failures once per branch). */
export function uniqueIssues(issues: Iterable<ArgumentIssue>): ArgumentIssue[] {
  const out: ArgumentIssue[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const key = `${issue.argument}\u0000${issue.rule}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}

/** Human text for a list of issues: at most five, then a count. */
export function describeIssues(issues: readonly ArgumentIssue[]): string {
  const shown = issues.slice(0, 5).map((issue) => `${issue.message} (${issue.rule})`);
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
  return `${shown.join('; ')}${more}`;
}
