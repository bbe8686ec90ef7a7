// How `changeset version` writes CHANGELOG entries: the text each changeset's author wrote for
// users, never a commit hash (the default generator prefixes one, which means nothing on npm),
// and one line naming the internal dependencies a release moved to (not one line per changeset).
'use strict';

/** @type {import('@changesets/types').GetReleaseLine} */
async function getReleaseLine(changeset) {
  const [first = '', ...rest] = changeset.summary.split('\n').map((line) => line.trimEnd());
  const more = rest.map((line) => (line === '' ? '' : `  ${line}`)).join('\n');
  return `- ${first}${rest.length > 0 ? `\n${more}` : ''}`;
}

/** @type {import('@changesets/types').GetDependencyReleaseLine} */
async function getDependencyReleaseLine(_changesets, dependenciesUpdated) {
  if (dependenciesUpdated.length === 0) return '';
  const names = dependenciesUpdated.map((dependency) => `\`${dependency.name}@${dependency.newVersion}\``);
  return `- Updated dependencies: ${names.join(', ')}.`;
}

module.exports = { getReleaseLine, getDependencyReleaseLine };
