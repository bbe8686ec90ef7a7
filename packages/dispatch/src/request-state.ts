/** MRTR `requestState`: answers gathered so far, HMAC-sealed and bound to method, name, argument digest and principal, with a TTL. */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { refuse } from '@agentd/lifecycle';
import type { JsonObject, WireError } from '@agentd/rpc-frame';
import { canonicalJson, isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';

/** What a state is valid for: the same method, target name, arguments and principal. */
export interface StateBinding {
  method: string;
  name: string;
  argumentsDigest: string;
  principal: string;
}

export interface OpenedState {
  responses: JsonObject;
  /** Keys the server asked for last round; '*' when the requests were not a keyed map. */
  outstanding: readonly string[] | '*';
}

const MAX_STATE_CHARS = 4 * 1024 * 1024;

export function digestOf(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(value ?? {}))
    .digest('base64url');
}

export class RequestStateCodec {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { key?: string | Uint8Array; ttlMs?: number; now?: () => number } = {}) {
    this.#key = options.key === undefined ? randomBytes(32) : Buffer.from(options.key);
    if (this.#key.length < 16)
      throw dispatchError('invalid_option', 'requestState key must be at least 16 bytes');
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  seal(binding: StateBinding, state: OpenedState): string {
    const payload = {
      v: 1,
      m: binding.method,
      n: binding.name,
      d: binding.argumentsDigest,
      p: binding.principal,
      x: this.#now() + this.#ttlMs,
      o: state.outstanding,
      r: state.responses,
    };
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${body}.${this.#sign(body)}`;
  }

  /** Verifies and opens a state; every failure is -32602 (tampered, foreign, expired or malformed). */
  open(token: unknown, binding: StateBinding): OpenedState {
    if (typeof token !== 'string' || token.length > MAX_STATE_CHARS)
      throw invalid('requestState must be a string');
    const dot = token.indexOf('.');
    const body = token.slice(0, dot);
    // Compare the text, not decoded bytes: lenient base64 decoding would accept altered padding bits.
    const signature = Buffer.from(token.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.#sign(body), 'utf8');
    if (dot <= 0 || signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
      throw invalid('requestState failed verification');
    }
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const bound =
      payload.v === 1 &&
      payload.m === binding.method &&
      payload.n === binding.name &&
      payload.d === binding.argumentsDigest &&
      payload.p === binding.principal;
    if (!bound) throw invalid('requestState does not belong to this request');
    if (typeof payload.x !== 'number' || payload.x < this.#now()) throw invalid('requestState has expired');
    const outstanding = payload.o === '*' ? '*' : Array.isArray(payload.o) ? (payload.o as string[]) : [];
    return { responses: isJsonObject(payload.r) ? payload.r : {}, outstanding };
  }

  #sign(body: string): string {
    return createHmac('sha256', this.#key).update(`agentd-mrtr.v1.${body}`).digest('base64url');
  }
}

function invalid(reason: string): WireError {
  return refuse.invalidRequestState(reason);
}
