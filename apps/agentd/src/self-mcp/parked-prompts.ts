/**
 * Permission prompts for a 2026-07-28 caller outside a task. Such a call cannot be asked while it
 * waits: its question is the call's answer (`input_required`), and the answer comes with a retry
 * of the same call, which runs its handler from the start. So when a prompt arrives, the call
 * stops waiting (the run goes on, the prompt stays pending on it) and answers `input_required`
 * with the form under a key of its own; the retry finds the run again through that key, gives the
 * run its answer, and waits on as before, until the run settles or the next prompt.
 *
 * The key is a capability, as a handle is: it is told only to the waiting caller and is
 * unguessable (`permission_<requestId>_<random>`), because a first-round call may bring any
 * `inputResponses` it likes. It is stable per request, so a retry that lacks the answer is asked
 * again under the same key.
 */
import { randomBytes } from 'node:crypto';
import { MissingClientCapabilityError } from '@agentd/dispatch';
import type { JsonObject } from '@agentd/rpc-frame';
import type { Supervisor } from '../supervisor/index.js';
import type { PermissionRequest } from '../supervisor/run-event.js';
import type { PermissionAnswerer } from '../supervisor/types.js';
import type { OperationContext } from './operation-spec.js';
import { chosenOption, permissionMessage, permissionSchema } from './permission-elicit.js';

/** Prompts remembered for retries (the oldest forgotten first; a forgotten one times out on its run). */
const MAX_PARKED = 4096;

interface Parked {
  handle: string;
  runId: string;
  request: PermissionRequest;
}

/** Parked prompts kept before the first sweep for ones no longer pending. */
const FIRST_SWEEP = 64;

export class ParkedPrompts {
  readonly #byKey = new Map<string, Parked>();
  readonly #keyOf = new Map<string, string>();
  #sweepAt = FIRST_SWEEP;

  /**
   * `pending`: whether a run still waits on a request. Prompts whose run ended, or that a timeout
   * or an operator decided, are swept out as new ones park (their callers never retried).
   */
  constructor(private readonly pending: (handle: string, requestId: string) => boolean) {}

  /** The key of this run's request, made once. */
  keyFor(handle: string, runId: string, request: PermissionRequest): string {
    const id = `${handle}\u0000${request.requestId}`;
    const known = this.#keyOf.get(id);
    if (known !== undefined) return known;
    if (this.#byKey.size >= this.#sweepAt) this.#sweep();
    const key = `permission_${request.requestId}_${randomBytes(12).toString('base64url')}`;
    this.#byKey.set(key, { handle, runId, request });
    this.#keyOf.set(id, key);
    if (this.#byKey.size > MAX_PARKED) {
      const [oldest] = this.#byKey.keys();
      if (oldest !== undefined) this.forget(oldest);
    }
    return key;
  }

  get size(): number {
    return this.#byKey.size;
  }

  /** Drops what no run waits on any more; the next sweep comes once as many again have parked. */
  #sweep(): void {
    for (const [key, parked] of this.#byKey) {
      if (!this.pending(parked.handle, parked.request.requestId)) this.forget(key);
    }
    this.#sweepAt = Math.max(FIRST_SWEEP, this.#byKey.size * 2);
  }

  /** The parked prompts among a retry's answer keys. */
  find(keys: readonly string[]): Array<Parked & { key: string }> {
    const found: Array<Parked & { key: string }> = [];
    for (const key of keys) {
      const parked = this.#byKey.get(key);
      if (parked !== undefined) found.push({ ...parked, key });
    }
    return found;
  }

  forget(key: string): void {
    const parked = this.#byKey.get(key);
    if (parked === undefined) return;
    this.#byKey.delete(key);
    this.#keyOf.delete(`${parked.handle}\u0000${parked.request.requestId}`);
  }
}

/** What a call that parked answers: the round becomes `input_required` whatever the value. */
export const PARKED: JsonObject = Object.freeze({ parked: true }) as JsonObject;

/**
 * One 2026-07-28 call waiting on a run. `signal` follows the caller until the call parks (the run
 * must outlive the call then); `leave` also aborts when it parks (for waits that only watch).
 */
export class ModernWait {
  readonly #context: OperationContext;
  readonly #prompts: ParkedPrompts;
  readonly #tie = new AbortController();
  readonly #leave = new AbortController();
  #parked = false;
  #onParked: () => void = () => {};
  readonly #parkedNow = new Promise<void>((resolve) => {
    this.#onParked = resolve;
  });
  readonly #forward = (): void => {
    this.#tie.abort();
    this.#leave.abort();
  };

  constructor(
    context: OperationContext,
    prompts: ParkedPrompts,
    readonly handle: () => string | undefined,
    readonly runId: () => string | undefined,
    /** False for a caller that may not answer for the run (a restricted non-starter). */
    private readonly answers = true,
  ) {
    this.#context = context;
    this.#prompts = prompts;
    if (context.signal.aborted) this.#forward();
    else context.signal.addEventListener('abort', this.#forward, { once: true });
  }

  get signal(): AbortSignal {
    return this.#tie.signal;
  }

  get leave(): AbortSignal {
    return this.#leave.signal;
  }

  get parked(): boolean {
    return this.#parked;
  }

  /** `sink` until the call parks; nothing after (its request has been answered). */
  gate<A>(sink: (value: A) => void): (value: A) => void {
    return (value) => {
      if (!this.#parked) sink(value);
    };
  }

  /** Asks the caller by ending the round; undefined leaves the prompt pending on the run. */
  readonly answerer: PermissionAnswerer = async (request) => {
    const handle = this.handle();
    const runId = this.runId();
    if (!this.answers || this.#parked || handle === undefined || runId === undefined) return undefined;
    const key = this.#prompts.keyFor(handle, runId, request);
    let answer: JsonObject;
    try {
      answer = await this.#context.elicit(formOf(request, runId), { key });
    } catch (error) {
      // No elicitation declared: an operator or the timeout decides. Else the question is out.
      if (error instanceof MissingClientCapabilityError) {
        this.#prompts.forget(key);
        return undefined;
      }
      this.#park();
      return undefined;
    }
    this.#prompts.forget(key);
    return chosenOption(answer, request);
  };

  /** `work`'s value, or PARKED once a prompt ended the round first (`work` then goes on unwatched). */
  async run<T>(work: Promise<T>): Promise<T | typeof PARKED> {
    work.catch(() => {}); // after parking nobody awaits it
    const watched = work.then(
      (value) => ({ value }),
      (error: unknown) => {
        // A wait that parking ended (it left the run) is no failure.
        if (this.#parked) return undefined;
        throw error;
      },
    );
    const winner = await Promise.race([watched, this.#parkedNow.then(() => undefined)]);
    this.#done();
    return winner === undefined ? PARKED : winner.value;
  }

  #park(): void {
    if (this.#parked) return;
    this.#parked = true;
    this.#context.signal.removeEventListener('abort', this.#forward);
    this.#leave.abort();
    this.#onParked();
  }

  #done(): void {
    this.#context.signal.removeEventListener('abort', this.#forward);
  }
}

function formOf(request: PermissionRequest, runId: string): JsonObject {
  return {
    mode: 'form',
    message: permissionMessage(request, runId),
    requestedSchema: permissionSchema(request.options),
  };
}

/**
 * A retry's answers given to their runs (as the caller's decisions); the run they belong to, or
 * undefined when the call is not a retry. An answer that comes too late (the timeout or an
 * operator decided first) changes nothing.
 */
export async function applyRetryAnswers(
  context: OperationContext,
  prompts: ParkedPrompts,
  supervisor: Supervisor,
  onlyHandle?: string,
): Promise<{ handle: string; runId: string; answered: Set<string> } | undefined> {
  const found = prompts
    .find(context.inputKeys?.() ?? [])
    .filter((p) => onlyHandle === undefined || p.handle === onlyHandle);
  const first = found[0];
  if (first === undefined) return undefined;
  const answered = new Set<string>();
  for (const parked of found.filter((p) => p.handle === first.handle)) {
    answered.add(parked.request.requestId);
    const answer = await context.elicit(formOf(parked.request, parked.runId), { key: parked.key });
    prompts.forget(parked.key);
    const option = chosenOption(answer, parked.request);
    try {
      supervisor.approve(parked.handle, parked.request.requestId, option ?? { allow: false }, 'caller');
    } catch {
      // Already decided (timeout, operator), or the run is gone: the wait below says how it went.
    }
  }
  return { handle: first.handle, runId: first.runId, answered };
}
