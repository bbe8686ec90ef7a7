/** The Skills extension's protocol rules: the skill-name rule and what counts as a traversing skill URI. */
import { JsonRpcErrorCode } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import {
  isTraversingSkillUri,
  SKILL_NAME_PATTERN,
  SkillErrorText,
  skillManifestUri,
  skillsInvalidParams,
} from './skills-extension.js';

describe('skills extension rules', () => {
  it('skill names follow the Agent Skills naming rules', () => {
    for (const name of ['a', 'pdf-processing', 'x1', 'a'.repeat(64), 'a-b-c']) {
      expect(SKILL_NAME_PATTERN.test(name), name).toBe(true);
    }
    for (const name of ['', 'A', 'a_b', '-a', 'a-', 'a--b', 'a'.repeat(65), 'a.b', 'ä']) {
      expect(SKILL_NAME_PATTERN.test(name), name).toBe(false);
    }
  });

  it('flags empty, dot and encoded-separator segments, and nothing else', () => {
    for (const uri of [
      'skill://a/../b',
      'skill://a/./b',
      'skill://../a',
      'skill://a//b',
      'skill://a/b/',
      'skill://a/%2e%2E/b',
      'skill://a/b%2Fc',
      'skill://a/b%5Cc',
      'skill://a\\b',
      'skill://a/%00',
      'skill://a/%zz',
    ]) {
      expect(isTraversingSkillUri(uri), uri).toBe(true);
    }
    for (const uri of [
      'skill://a/SKILL.md',
      'skill://acme/billing/refunds/SKILL.md',
      'skill://a/b%20c.md',
      'skill://a/.hidden',
      'skill://a',
      'not-a-uri',
    ]) {
      expect(isTraversingSkillUri(uri), uri).toBe(false);
    }
  });

  it('builds manifest URIs and -32602 errors carrying the uri', () => {
    expect(skillManifestUri('acme/billing/refunds')).toBe('skill://acme/billing/refunds/SKILL.md');
    const error = skillsInvalidParams(SkillErrorText.noSkill('skill://x/SKILL.md'), 'skill://x/SKILL.md');
    expect(error.code).toBe(JsonRpcErrorCode.InvalidParams);
    expect(error.data).toEqual({ uri: 'skill://x/SKILL.md' });
  });
});
