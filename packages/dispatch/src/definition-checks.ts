/** The checks every registered definition goes through: ids, required texts and functions. */
import type { JsonObject } from '@agentd/rpc-frame';
import { dispatchError } from './local-errors.js';

export const ID_PATTERN = /^[A-Za-z0-9_.-]{1,60}$/;

/** Sets `key` only when there is a value (absent, never undefined). */
export function optional(target: JsonObject, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

export function requireText(what: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw dispatchError('invalid_definition', `${what} is required`);
  return value;
}

export function requireFunction(what: string, value: unknown): void {
  if (typeof value !== 'function') throw dispatchError('invalid_definition', `${what} must be a function`);
}
