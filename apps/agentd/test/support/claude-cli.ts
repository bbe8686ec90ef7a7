/**
 * The real Claude Code CLI for offline tests: its native binary from the pinned npm package's
 * platform package, and a `claude` profile that talks only to a scripted model on loopback
 * (throwaway HOME and config, dummy key, no telemetry or update traffic). Without the binary a
 * test file is one SKIPPED line, except under CI=true, where it fails.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AgentProfile } from '../../src/supervisor/types.js';

const IN_CI = process.env.CI === 'true';

function findClaude(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const wrapper = require.resolve('@anthropic-ai/claude-code/package.json');
    const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`;
    const bin = join(dirname(createRequire(wrapper).resolve(platform)), 'claude');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** The native `claude` binary, when the pinned package installed it. */
const CLAUDE_BIN = findClaude();

/** The failure a Claude Code test reports under CI=true when the binary is missing. */
export const CLAUDE_MISSING_IN_CI =
  'CI=true but the Claude Code binary is missing: pnpm install must fetch @anthropic-ai/claude-code and its platform package';

/** Whether `what` runs here; without the binary one SKIPPED line, or `failInCi` under CI=true. */
export function claudeTests(what: string): { run: boolean; failInCi: boolean } {
  if (CLAUDE_BIN === undefined && !IN_CI)
    console.warn(`SKIPPED: ${what}: no Claude Code binary (pnpm install @anthropic-ai/claude-code)`);
  return { run: CLAUDE_BIN !== undefined, failInCi: CLAUDE_BIN === undefined && IN_CI };
}

/** A `claude` profile against the scripted model at `baseUrl`, working in `cwd`, with `home` as its HOME. */
export function claudeProfile(
  name: string,
  baseUrl: string,
  cwd: string,
  home: string,
  extra: Partial<AgentProfile> = {},
): AgentProfile {
  return {
    name,
    mode: 'claude',
    command: CLAUDE_BIN ?? 'claude',
    args: ['--model', 'claude-sonnet-4-5'],
    cwd,
    inheritEnv: false,
    env: {
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-offline-test',
      // Claude Code refuses to run as root outside a sandbox; these tests are one.
      IS_SANDBOX: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    ...extra,
  };
}
