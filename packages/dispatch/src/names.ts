/** Names of tools, prompts and operations: the character set every MCP client accepts. */
import { dispatchError } from './local-errors.js';

const NAME_PATTERN = /^[A-Za-z0-9_./-]{1,64}$/;

export function assertValidName(what: string, name: unknown): asserts name is string {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    throw dispatchError(
      'invalid_name',
      `${what} name ${JSON.stringify(name)} is invalid: use 1-64 characters of A-Z a-z 0-9 _ . / -`,
    );
  }
}
