/**
 * The Supervisor's permission broker: an agent's permission request is answered by the first of
 * the profile's policy, the callers waiting on the run (their `onPermission`), an operator
 * (`Supervisor.approve`), the timeout (deny) or the end of its turn (cancelled). Exactly one
 * answer counts; a later one is refused with `already_decided`.
 */
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { DEFAULT_PERMISSION_TIMEOUT_MS, evaluatePolicy } from './permission-policy.js';
import type {
  DecidedBy,
  PermissionBroker,
  PermissionDecision,
  PermissionOption,
  PermissionOptionKind,
  PermissionRequest,
  PermissionSubject,
} from './run-event.js';

/** An operator's answer: an option id the agent offered, or allow/deny (once unless `always`). */
export type PermissionAnswer = string | { allow: boolean; always?: boolean };

interface Pending {
  request: PermissionRequest;
  settle: (decision: PermissionDecision) => void;
}

/** Decided request keys remembered to tell a late answer "already decided" (bounded, oldest dropped). */
const MAX_REMEMBERED = 4096;

export class PolicyBroker implements PermissionBroker {
  private readonly pending = new Map<string, Pending>();
  private readonly decided = new Map<string, DecidedBy>();

  /** Requests waiting for an answer (across runs). */
  get pendingCount(): number {
    return this.pending.size;
  }

  decide(
    subject: PermissionSubject,
    request: PermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionDecision> {
    const key = keyOf(subject.handle, request.requestId);
    if (signal.aborted) return Promise.resolve(this.remember(key, { outcome: 'cancelled', by: 'cancelled' }));
    const verdict = evaluatePolicy(subject.policy, request.toolCall);
    if (verdict !== 'ask') {
      const option = pick(request.options, verdict === 'allow', false);
      return Promise.resolve(
        this.remember(
          key,
          option === undefined ? { outcome: 'cancelled', by: 'policy' } : selected(option, 'policy'),
        ),
      );
    }
    return new Promise((resolve) => {
      const answered = new AbortController();
      const timeoutMs = subject.policy?.timeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS;
      const timer = setTimeout(() => {
        const option = pick(request.options, false, false);
        settle(option === undefined ? { outcome: 'cancelled', by: 'timeout' } : selected(option, 'timeout'));
      }, timeoutMs);
      timer.unref();
      const onAbort = (): void => settle({ outcome: 'cancelled', by: 'cancelled' });
      const settle = (decision: PermissionDecision): void => {
        if (!this.pending.has(key)) return;
        this.pending.delete(key);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        answered.abort();
        resolve(this.remember(key, decision));
      };
      this.pending.set(key, { request, settle });
      signal.addEventListener('abort', onAbort, { once: true });
      for (const answerer of subject.answerers ?? []) {
        answerer(request, answered.signal).then(
          (optionId) => {
            const option = request.options.find((o) => o.optionId === optionId);
            if (option !== undefined) settle(selected(option, 'caller'));
          },
          () => {}, // a caller that fails to answer leaves the others to decide
        );
      }
    });
  }

  /** An operator's answer to a pending request; throws when there is none to answer. */
  answer(
    handle: string,
    requestId: string,
    answer: PermissionAnswer,
    by: DecidedBy = 'operator',
  ): PermissionDecision {
    const key = keyOf(handle, requestId);
    const pending = this.pending.get(key);
    if (pending === undefined) {
      const by = this.decided.get(key);
      if (by !== undefined)
        throw new LocalError<AgentdErrorCode>(
          'already_decided',
          `permission request ${requestId} was already decided (by ${by})`,
        );
      throw new LocalError<AgentdErrorCode>(
        'unknown_request',
        `no pending permission request ${JSON.stringify(requestId)} on this run`,
      );
    }
    const option =
      typeof answer === 'string'
        ? pending.request.options.find((o) => o.optionId === answer)
        : pick(pending.request.options, answer.allow, answer.always === true);
    if (option === undefined) {
      const offered = pending.request.options.map((o) => o.optionId).join(', ');
      throw new LocalError<AgentdErrorCode>(
        'invalid_request',
        `no such option for this request; offered: ${offered}`,
      );
    }
    const decision = selected(option, by);
    pending.settle(decision);
    return decision;
  }

  private remember(key: string, decision: PermissionDecision): PermissionDecision {
    this.decided.set(key, decision.by);
    if (this.decided.size > MAX_REMEMBERED) {
      const oldest = this.decided.keys().next().value;
      if (oldest !== undefined) this.decided.delete(oldest);
    }
    return decision;
  }
}

function keyOf(handle: string, requestId: string): string {
  return `${handle}\u0000${requestId}`;
}

function selected(option: PermissionOption, by: DecidedBy): PermissionDecision {
  return { outcome: 'selected', optionId: option.optionId, kind: option.kind, by };
}

/** The offered option for allow/deny, once or always; the other duration when that one is not offered. */
function pick(options: PermissionOption[], allow: boolean, always: boolean): PermissionOption | undefined {
  const [first, second]: PermissionOptionKind[] = allow
    ? always
      ? ['allow_always', 'allow_once']
      : ['allow_once', 'allow_always']
    : always
      ? ['reject_always', 'reject_once']
      : ['reject_once', 'reject_always'];
  return options.find((o) => o.kind === first) ?? options.find((o) => o.kind === second);
}
