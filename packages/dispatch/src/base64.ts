/**
 * Base64 and base64url without the `Buffer` global, which Deno and workerd do not offer: cursors,
 * request-state tokens and blob contents are encoded on dispatch's main path, which loads on every
 * runtime. Node's `Buffer` when the runtime offers it (`process.getBuiltinModule`), else the pure
 * codec below. Resolved on first use, so loading this module does nothing.
 */
interface NativeBuffer {
  from(bytes: Uint8Array): { toString(encoding: 'base64' | 'base64url'): string };
  from(text: string, encoding: 'base64url'): Uint8Array;
}

interface BuiltinHost {
  getBuiltinModule?: (id: string) => { Buffer?: NativeBuffer } | undefined;
}

interface Codec {
  toBase64(bytes: Uint8Array): string;
  toBase64Url(bytes: Uint8Array): string;
  fromBase64Url(text: string): Uint8Array;
}

let codec: Codec | undefined;

function resolveCodec(): Codec {
  const host = (globalThis as { process?: BuiltinHost }).process;
  let native: NativeBuffer | undefined;
  try {
    native = host?.getBuiltinModule?.('node:buffer')?.Buffer;
  } catch {
    // A host that names the hook but refuses the module: the pure codec serves.
  }
  if (native === undefined) return pureBase64;
  const buffer = native;
  return {
    toBase64: (bytes) => buffer.from(bytes).toString('base64'),
    toBase64Url: (bytes) => buffer.from(bytes).toString('base64url'),
    fromBase64Url: (text) => buffer.from(text, 'base64url'),
  };
}

/** Standard base64 with padding (MCP `blob` contents). */
export function toBase64(bytes: Uint8Array): string {
  codec ??= resolveCodec();
  return codec.toBase64(bytes);
}

/** base64url without padding (tokens and cursors). */
export function toBase64Url(bytes: Uint8Array): string {
  codec ??= resolveCodec();
  return codec.toBase64Url(bytes);
}

/** Decodes base64url (or base64); like Node's decoder it skips characters outside the alphabet. */
export function fromBase64Url(text: string): Uint8Array {
  codec ??= resolveCodec();
  return codec.fromBase64Url(text);
}

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  VALUES[STANDARD.charCodeAt(i)] = i;
  VALUES[URL_SAFE.charCodeAt(i)] = i;
}

function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] as number;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    out += alphabet[a >> 2];
    out += alphabet[((a & 3) << 4) | ((b ?? 0) >> 4)];
    if (b !== undefined) out += alphabet[((b & 15) << 2) | ((c ?? 0) >> 6)];
    else if (pad) out += '=';
    if (c !== undefined) out += alphabet[c & 63];
    else if (pad) out += '=';
  }
  return out;
}

function decode(text: string): Uint8Array {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let length = 0;
  let bits = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x3d) break; // '=' ends the data
    const value = code < 128 ? (VALUES[code] as number) : -1;
    if (value < 0) continue;
    bits = ((bits << 6) | value) & 0xffffff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out[length++] = (bits >> count) & 0xff;
    }
  }
  return out.subarray(0, length);
}

/** The pure codec, exported for the tests that hold it to Node's `Buffer`. */
export const pureBase64: Codec = {
  toBase64: (bytes) => encode(bytes, STANDARD, true),
  toBase64Url: (bytes) => encode(bytes, URL_SAFE, false),
  fromBase64Url: decode,
};
