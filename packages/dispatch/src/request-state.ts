/** MRTR `requestState`: answers gathered so far, HMAC-sealed and bound to method, name, argument digest and principal, with a TTL. */
import { refuse } from '@agentd/lifecycle';
import type { JsonObject, WireError } from '@agentd/rpc-frame';
import { fromBase64Url, toBase64Url } from './base64.js';
import { constantTimeEqual } from './constant-time-equal.js';
import { canonicalJson, isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import { hmacSha256, sha256 } from './sha256.js';

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
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export function digestOf(value: unknown): string {
  return sha256(canonicalJson(value ?? {}), 'base64url');
}

export class RequestStateCodec {
  readonly #key: Uint8Array;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { key?: string | Uint8Array; ttlMs?: number; now?: () => number } = {}) {
    const key = options.key;
    this.#key =
      key === undefined
        ? globalThis.crypto.getRandomValues(new Uint8Array(32))
        : typeof key === 'string'
          ? utf8.encode(key)
          : Uint8Array.from(key);
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
    const body = toBase64Url(utf8.encode(JSON.stringify(payload)));
    return `${body}.${this.#sign(body)}`;
  }

  /** Verifies and opens a state; every failure is -32602 (tampered, foreign, expired or malformed). */
  open(token: unknown, binding: StateBinding): OpenedState {
    if (typeof token !== 'string' || token.length > MAX_STATE_CHARS)
      throw invalid('requestState must be a string');
    const dot = token.indexOf('.');
    const body = token.slice(0, dot);
    // Compare the text, not decoded bytes: lenient base64 decoding would accept altered padding bits.
    const signature = utf8.encode(token.slice(dot + 1));
    const expected = utf8.encode(this.#sign(body));
    if (dot <= 0 || !constantTimeEqual(signature, expected)) {
      throw invalid('requestState failed verification');
    }
    const payload = JSON.parse(fromUtf8.decode(fromBase64Url(body))) as Record<string, unknown>;
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
    return hmacSha256(this.#key, `agentd-mrtr.v1.${body}`, 'base64url');
  }
}

function invalid(reason: string): WireError {
  return refuse.invalidRequestState(reason);
}
