/**
 * Every JSON example in docs/agents.md is a config file agentd accepts: each block is written to a
 * file and resolved exactly as the daemon resolves its config (schema, defaultAgent, merging).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from './resolve-config.js';

const DOC = readFileSync(new URL('../../docs/agents.md', import.meta.url), 'utf8');
const BLOCKS = [...DOC.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
const dir = mkdtempSync(join(tmpdir(), 'agentd-doc-profiles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function resolveBlock(text: string, index: number) {
  const configPath = join(dir, `block-${index}.json`);
  writeFileSync(configPath, text);
  // A ConfigError's message lists every issue with its path.
  return resolveConfig({ configPath, env: {}, flags: new Map(), serveDefaults: false, cwd: dir }).config;
}

describe('the agent profiles in docs/agents.md', () => {
  it('has the examples it promises', () => {
    const agents = BLOCKS.flatMap((text) => Object.keys((JSON.parse(text) as { agents: object }).agents));
    expect(agents).toEqual(
      expect.arrayContaining(['claude', 'claude-acp', 'codex', 'gemini', 'gemini-old', 'my-agent']),
    );
  });

  it.each(BLOCKS.map((text, index) => [index, text] as const))(
    'block %i is a valid config',
    (index, text) => {
      const config = resolveBlock(text, index);
      const declared = (JSON.parse(text) as { agents: Record<string, { mode: string }> }).agents;
      for (const [name, profile] of Object.entries(declared))
        expect(config.agents[name]).toMatchObject({ mode: profile.mode });
    },
  );

  it('a wrong key in such a block is refused, so the check has teeth', () => {
    expect(() => resolveBlock('{"agents": {"x": {"mode": "acp", "comand": "x"}}}', 99)).toThrow(/comand/);
  });
});
