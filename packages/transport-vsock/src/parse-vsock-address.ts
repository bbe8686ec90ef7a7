/** Parses the `vsock:PORT` / `vsock:CID:PORT` listen and dial targets shared with agentd's config. */

import { VMADDR_CID_ANY, VMADDR_PORT_ANY } from './constants.js';
import { vsockError } from './local-errors.js';

export interface VsockAddress {
  cid: number;
  port: number;
}

const MAX_U32 = 0xffff_ffff;

function fail(text: string, why: string): never {
  throw vsockError('invalid_vsock_address', `invalid vsock address ${JSON.stringify(text)}: ${why}`);
}

/** Strict unsigned decimal (no sign, no spaces, no hex), at most 32 bits. */
function parseU32(text: string, field: string, value: string): number {
  if (!/^[0-9]{1,10}$/.test(value))
    fail(text, `${field} must be a decimal number, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n > MAX_U32) fail(text, `${field} ${value} is out of range (0..${MAX_U32})`);
  return n;
}

/**
 * `vsock:PORT` means any local CID (`VMADDR_CID_ANY`, so the host can connect); `vsock:CID:PORT`
 * names the CID. Port 0 and the wildcard port are refused: a service needs a fixed, known port.
 * Throws LocalError `invalid_vsock_address` with the reason.
 */
export function parseVsockAddress(text: string): VsockAddress {
  if (typeof text !== 'string') fail(String(text), 'expected a string');
  if (!text.startsWith('vsock:')) fail(text, 'expected "vsock:PORT" or "vsock:CID:PORT"');
  const parts = text.slice('vsock:'.length).split(':');
  if (parts.length > 2) fail(text, 'expected "vsock:PORT" or "vsock:CID:PORT"');
  const portText = parts.length === 2 ? parts[1]! : parts[0]!;
  const cid = parts.length === 2 ? parseU32(text, 'CID', parts[0]!) : VMADDR_CID_ANY;
  const port = parseU32(text, 'port', portText);
  if (port === 0) fail(text, 'port 0 is not a valid vsock service port');
  if (port === VMADDR_PORT_ANY) fail(text, 'port 4294967295 is the wildcard port, not a service port');
  return { cid, port };
}

/** A numeric cid or port given as an option: an integer in `min..max`, else `invalid_vsock_address`. */
export function checkU32(name: string, value: unknown, min: number, max = MAX_U32): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw vsockError(
      'invalid_vsock_address',
      `${name} must be an integer in ${min}..${max}, got ${String(value)}`,
    );
  }
  return value;
}
