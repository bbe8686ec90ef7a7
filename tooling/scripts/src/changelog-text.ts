/**
 * What a generated CHANGELOG entry must not contain. Users read these on npm: a commit hash or a
 * workspace detail means nothing to them, and a package's first release has no history, so its
 * notes describe what the package is and does, not how it changed before anyone could install it.
 */

const ALWAYS: [RegExp, string][] = [
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/, 'a bare commit hash'],
  [/workspace[:-]/i, 'a workspace-only detail'],
  [/@agentd\/source/, 'the workspace-only export condition'],
  [/\bseed-\d/i, 'an internal document name'],
  [/\baudit\b/i, 'internal process jargon'],
];

const FIRST_RELEASE: [RegExp, string][] = [
  [/\bno longer\b/i, 'pre-release history ("no longer")'],
  [/\bpreviously\b/i, 'pre-release history ("previously")'],
  [/\(was\b/i, 'pre-release history ("(was …)")'],
];

/** The newest `## version` section of a changelog, without its heading. */
export function newestEntry(changelog: string): string {
  const sections = changelog.split(/^## /m);
  return (sections[1] ?? '').replace(/^[^\n]*\n/, '');
}

export function changelogProblems(entry: string, firstRelease: boolean): string[] {
  const rules = firstRelease ? [...ALWAYS, ...FIRST_RELEASE] : ALWAYS;
  const problems: string[] = [];
  for (const [pattern, what] of rules) {
    const match = pattern.exec(entry);
    if (match === null) continue;
    const at = Math.max(0, match.index - 40);
    problems.push(`${what}: …${entry.slice(at, match.index + match[0].length + 40).replace(/\s+/g, ' ')}…`);
  }
  return problems;
}
