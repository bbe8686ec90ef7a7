/**
 * A profile's permission policy: patterns over a tool call's kind, name and input that allow or
 * deny an agent's permission request before anyone is asked. Deny wins over allow; a request no
 * pattern matches gets the policy's default (`ask` unless set).
 *
 * A pattern is `*` (any call), a tool kind (`read`, `edit`, `execute`, …: ACP's kinds), a tool
 * name (`Read`, `mcp__github__*`), or either with an input glob in parentheses: `Bash(git *)`,
 * `edit(/repo/src/*)`. The glob is matched against the call's input summary (a Bash command, a
 * URL, a pattern) and against each file it touches; `*` there matches any run of characters.
 */
import { isToolKind, type ToolCallView } from './run-event.js';
import type { PermissionPolicy } from './types.js';

export type PolicyVerdict = 'allow' | 'deny' | 'ask';

/** Default wait for an asked request before it is denied. */
export const DEFAULT_PERMISSION_TIMEOUT_MS = 300_000;

const PATTERN = /^([^()\s]+)(?:\((.*)\))?$/s;

interface Matcher {
  /** Matches the tool name (a glob), or the kind when `byKind`. */
  tool: RegExp;
  byKind: boolean;
  input: RegExp | undefined;
}

/** Why a pattern is malformed, or undefined when it is good. */
export function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string' || pattern.length === 0) return 'must be a non-empty string';
  if (!PATTERN.test(pattern))
    return `"${pattern}" is not a pattern: use a tool name or kind, optionally with an input glob in parentheses (e.g. "Bash(git *)")`;
  return undefined;
}

/** What the policy says about one tool call. */
export function evaluatePolicy(policy: PermissionPolicy | undefined, call: ToolCallView): PolicyVerdict {
  if (policy === undefined) return 'ask';
  if ((policy.deny ?? []).some((p) => matches(p, call))) return 'deny';
  if ((policy.allow ?? []).some((p) => matches(p, call))) return 'allow';
  return policy.default ?? 'ask';
}

/** Whether one pattern matches a tool call. A malformed pattern matches nothing (config checks refuse them). */
export function matches(pattern: string, call: ToolCallView): boolean {
  const matcher = compile(pattern);
  if (matcher === undefined) return false;
  const tool = matcher.byKind ? call.kind : call.name;
  if (tool === undefined || !matcher.tool.test(tool)) return false;
  if (matcher.input === undefined) return true;
  const input = matcher.input;
  const subjects = [...(call.input === undefined ? [] : [call.input]), ...(call.locations ?? [])];
  return subjects.some((subject) => input.test(subject));
}

const cache = new Map<string, Matcher | undefined>();

function compile(pattern: string): Matcher | undefined {
  if (cache.has(pattern)) return cache.get(pattern);
  const parts = PATTERN.exec(pattern);
  const matcher =
    parts?.[1] === undefined
      ? undefined
      : {
          tool: glob(parts[1]),
          // `*` alone matches every call, named or not.
          byKind: isToolKind(parts[1]) || parts[1] === '*',
          input: parts[2] === undefined ? undefined : glob(parts[2]),
        };
  // Profiles hold few patterns; the bound only guards against a config that churns them.
  if (cache.size > 1000) cache.clear();
  cache.set(pattern, matcher);
  return matcher;
}

function glob(text: string): RegExp {
  const body = text
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 's');
}

/** Checks a profile's `permissions`; returns a frozen copy, or the problem as [field, message]. */
export function checkPermissionPolicy(value: unknown): PermissionPolicy | [string, string] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['', 'must be an object'];
  const policy = value as Record<string, unknown>;
  for (const key of Object.keys(policy)) {
    if (!['allow', 'deny', 'default', 'timeoutMs'].includes(key))
      return [`.${key}`, 'unknown key (allow, deny, default, timeoutMs)'];
  }
  for (const list of ['allow', 'deny'] as const) {
    const patterns = policy[list];
    if (patterns === undefined) continue;
    if (!Array.isArray(patterns)) return [`.${list}`, 'must be an array of patterns'];
    for (const [index, pattern] of patterns.entries()) {
      const problem = patternProblem(pattern);
      if (problem !== undefined) return [`.${list}[${index}]`, problem];
    }
  }
  const fallback = policy.default;
  if (fallback !== undefined && fallback !== 'ask' && fallback !== 'deny' && fallback !== 'allow')
    return ['.default', 'must be "ask", "deny" or "allow"'];
  const timeoutMs = policy.timeoutMs;
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' ||
      !Number.isSafeInteger(timeoutMs) ||
      timeoutMs < 1 ||
      timeoutMs > 2_147_483_647)
  )
    return ['.timeoutMs', 'must be an integer from 1 to 2147483647'];
  const copy: PermissionPolicy = {};
  if (Array.isArray(policy.allow)) copy.allow = Object.freeze([...policy.allow]) as string[];
  if (Array.isArray(policy.deny)) copy.deny = Object.freeze([...policy.deny]) as string[];
  if (fallback !== undefined) copy.default = fallback;
  if (typeof timeoutMs === 'number') copy.timeoutMs = timeoutMs;
  return Object.freeze(copy);
}
