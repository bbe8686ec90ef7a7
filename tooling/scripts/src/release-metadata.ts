/** What a published manifest must carry for npm's page, provenance and consumers on Node 20. */
import type { PackageManifest } from './public-packages.js';

/** The one public home of the repository; every manifest points here (provenance checks it). */
export const REPOSITORY_URL = 'https://github.com/agentd-dev/agentd';

/** The oldest Node line the packages support (CI's first run); `engines.node` must admit it. */
export const OLDEST_NODE_MAJOR = 20;

export function metadataProblems(manifest: PackageManifest, relativeDir: string): string[] {
  const problems: string[] = [];
  if (manifest.license !== 'MIT') problems.push(`license is ${String(manifest.license)}, not MIT`);
  const repository = manifest.repository;
  if (typeof repository !== 'object') problems.push('repository is not an object with url and directory');
  else {
    if (repository.type !== 'git') problems.push('repository.type is not git');
    if (repository.url !== `git+${REPOSITORY_URL}.git`)
      problems.push(`repository.url is ${String(repository.url)}, not git+${REPOSITORY_URL}.git`);
    if (repository.directory !== relativeDir)
      problems.push(`repository.directory is ${String(repository.directory)}, not ${relativeDir}`);
  }
  if (manifest.homepage !== `${REPOSITORY_URL}/tree/main/${relativeDir}#readme`)
    problems.push(`homepage is ${String(manifest.homepage)}`);
  const bugs = typeof manifest.bugs === 'object' ? manifest.bugs.url : manifest.bugs;
  if (bugs !== `${REPOSITORY_URL}/issues`) problems.push(`bugs is ${String(bugs)}`);
  if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) problems.push('no keywords');
  const node = manifest.engines?.node;
  if (node === undefined) problems.push('no engines.node');
  // A later Node 20 minor is allowed where a dependency needs it (the OTel SDK: 20.6).
  else if (!new RegExp(`^>=\\s*${OLDEST_NODE_MAJOR}(?:\\.\\d+){0,2}$`).test(node.trim()))
    problems.push(`engines.node is ${node}, expected >=${OLDEST_NODE_MAJOR}[.minor.patch]`);
  return problems;
}
