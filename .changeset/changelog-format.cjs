// How `changeset version` writes CHANGELOG entries: the text each changeset's author wrote for
// users, never a commit hash (the default generator prefixes one, which means nothing on npm),
// and one line naming the internal dependencies a release moved to (not one line per changeset).
'use strict';

/** The changelog line of one changeset: its summary, continuation lines indented. */
async function getReleaseLine(changeset) {
  const [first = '', ...rest] = changeset.summary.split('\n').map((line) => line.trimEnd());
  const more = rest.map((line) => (line === '' ? '' : `  ${line}`)).join('\n');
  return `- ${first}${rest.length > 0 ? `\n${more}` : ''}`;
}

/** One line naming the internal dependencies this release moved to. */
async function getDependencyReleaseLine(_changesets, dependenciesUpdated) {
  if (dependenciesUpdated.length === 0) return '';
  const names = dependenciesUpdated.map((dependency) => `\`${dependency.name}@${dependency.newVersion}\``);
  return `- Updated dependencies: ${names.join(', ')}.`;
}

module.exports = { getReleaseLine, getDependencyReleaseLine };
