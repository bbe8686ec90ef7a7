/** A config that cannot be used: every problem listed with where it came from and its path. */
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';

export interface ConfigIssue {
  /** 'file /etc/agentd.json', 'environment', 'flags', or 'config' for cross-field rules. */
  source: string;
  /** JSON pointer of the offending value ('' for the document itself). */
  path: string;
  message: string;
}

export function formatIssue(issue: ConfigIssue): string {
  return `${issue.source}: ${issue.path === '' ? '(root)' : issue.path}: ${issue.message}`;
}

export class ConfigError extends LocalError<AgentdErrorCode> {
  override name = 'ConfigError';
  readonly issues: readonly ConfigIssue[];

  /** `message` replaces the full list, e.g. a one-line summary for a client that only looked for the socket. */
  constructor(issues: readonly ConfigIssue[], message?: string) {
    super('invalid_config', message ?? `invalid configuration:\n  ${issues.map(formatIssue).join('\n  ')}`);
    this.issues = issues;
  }
}
