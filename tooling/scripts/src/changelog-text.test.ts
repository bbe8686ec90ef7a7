/** Tests for the CHANGELOG entry checks. */
import { describe, expect, it } from 'vitest';
import { changelogProblems, newestEntry } from './changelog-text.js';

describe('changelogProblems', () => {
  it('passes notes written for users', () => {
    const entry = '### Minor Changes\n\n- Serves MCP over a unix socket, owner-only (0600) by default.\n';
    expect(changelogProblems(entry, true)).toEqual([]);
  });

  it('flags commit hashes and workspace details in any release', () => {
    expect(changelogProblems('- 5f588bb: fixed it', false)).toHaveLength(1);
    expect(changelogProblems('- Updated dependencies [0e59556]', false)).toHaveLength(1);
    expect(changelogProblems('- drops the workspace-only condition', false)).toHaveLength(1);
    expect(changelogProblems('- a decade of deadbeef', false)).toEqual([]);
  });

  it('flags pre-release history only in a first release', () => {
    const entry = '- `notifyUpdated` no longer removes a stream (previously it did)';
    expect(changelogProblems(entry, true)).toHaveLength(2);
    expect(changelogProblems(entry, false)).toEqual([]);
  });
});

describe('newestEntry', () => {
  it('is the text under the first version heading', () => {
    const changelog = '# @agentd/x\n\n## 0.2.0\n\n- two\n\n## 0.1.0\n\n- one\n';
    expect(newestEntry(changelog)).toBe('\n- two\n\n');
  });
});
