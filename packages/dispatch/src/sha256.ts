/**
 * Synchronous SHA-256 and HMAC-SHA256 without importing `node:crypto`: dispatch's main entry loads
 * on every runtime, and its callers (request-state tokens, skill digests) are synchronous, which
 * WebCrypto is not. Node's native hash when the runtime offers it (`process.getBuiltinModule`:
 * Node ≥ 20.16, Bun, Deno, workerd with nodejs_compat), else the pure SHA-256 (FIPS 180-4) and
 * HMAC (RFC 2104) below. Resolved on first use, so loading this module does nothing.
 */
import { pureBase64 } from './base64.js';

export type DigestEncoding = 'hex' | 'base64url';

interface NativeHash {
  update(data: string | Uint8Array): NativeHash;
  digest(encoding: DigestEncoding): string;
}

interface NativeCrypto {
  createHash?: (algorithm: 'sha256') => NativeHash;
  createHmac?: (algorithm: 'sha256', key: Uint8Array) => NativeHash;
}

interface BuiltinHost {
  getBuiltinModule?: (id: string) => NativeCrypto | undefined;
}

interface Hashing {
  sha256(data: string | Uint8Array, encoding: DigestEncoding): string;
  hmacSha256(key: Uint8Array, data: string | Uint8Array, encoding: DigestEncoding): string;
}

let hashing: Hashing | undefined;

function resolveHashing(): Hashing {
  const host = (globalThis as { process?: BuiltinHost }).process;
  let native: NativeCrypto | undefined;
  try {
    native = host?.getBuiltinModule?.('node:crypto');
  } catch {
    // A host that names the hook but refuses the module: the pure path serves.
  }
  const { createHash, createHmac } = native ?? {};
  if (createHash !== undefined && createHmac !== undefined) {
    return {
      sha256: (data, encoding) => createHash('sha256').update(data).digest(encoding),
      hmacSha256: (key, data, encoding) => createHmac('sha256', key).update(data).digest(encoding),
    };
  }
  return pureHashing;
}

/** SHA-256 of `data` (strings as UTF-8), encoded. */
export function sha256(data: string | Uint8Array, encoding: DigestEncoding): string {
  hashing ??= resolveHashing();
  return hashing.sha256(data, encoding);
}

/** HMAC-SHA256 of `data` (strings as UTF-8) under `key`, encoded. */
export function hmacSha256(key: Uint8Array, data: string | Uint8Array, encoding: DigestEncoding): string {
  hashing ??= resolveHashing();
  return hashing.hmacSha256(key, data, encoding);
}

const utf8 = new TextEncoder();

function bytesOf(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? utf8.encode(data) : data;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function encode(bytes: Uint8Array, encoding: DigestEncoding): string {
  if (encoding === 'base64url') return pureBase64.toBase64Url(bytes);
  let out = '';
  for (const byte of bytes) out += HEX[byte];
  return out;
}

/** FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** FIPS 180-4 §5.3.3: the initial hash value. */
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** The pure SHA-256 (FIPS 180-4), exported for the tests that hold it to node:crypto. */
export function pureSha256(message: Uint8Array): Uint8Array {
  // Padding (§5.1.1): 0x80, zeros to 56 mod 64, then the bit length as a 64-bit big-endian integer.
  const blocks = Math.ceil((message.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = message.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bits / 0x1_0000_0000));
  view.setUint32(padded.length - 4, bits >>> 0);

  const h = Uint32Array.from(H0);
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 64; t++) {
      const w15 = w[t - 15] as number;
      const w2 = w[t - 2] as number;
      const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
      const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
      w[t] = (w[t - 16] as number) + s0 + (w[t - 7] as number) + s1;
    }
    compress(h, w);
  }
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  for (let i = 0; i < 8; i++) out.setUint32(i * 4, h[i] as number);
  return digest;
}

/** One round of §6.2.2 step 2-4 over the expanded schedule `w`, folded into `h`. */
function compress(h: Uint32Array, w: Uint32Array): void {
  let a = h[0] as number;
  let b = h[1] as number;
  let c = h[2] as number;
  let d = h[3] as number;
  let e = h[4] as number;
  let f = h[5] as number;
  let g = h[6] as number;
  let hh = h[7] as number;
  for (let t = 0; t < 64; t++) {
    const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const ch = (e & f) ^ (~e & g);
    const t1 = (hh + s1 + ch + (K[t] as number) + (w[t] as number)) | 0;
    const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (s0 + maj) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0] as number) + a;
  h[1] = (h[1] as number) + b;
  h[2] = (h[2] as number) + c;
  h[3] = (h[3] as number) + d;
  h[4] = (h[4] as number) + e;
  h[5] = (h[5] as number) + f;
  h[6] = (h[6] as number) + g;
  h[7] = (h[7] as number) + hh;
}

/** The pure HMAC-SHA256 (RFC 2104, block size 64), exported for the tests. */
export function pureHmacSha256(key: Uint8Array, message: Uint8Array): Uint8Array {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? pureSha256(key) : key);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = (block[i] as number) ^ 0x36;
    outer[i] = (block[i] as number) ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(pureSha256(inner), 64);
  return pureSha256(outer);
}

/** The pure path with the same encodings as the native one, for the tests that compare them. */
export const pureHashing: Hashing = {
  sha256: (data, encoding) => encode(pureSha256(bytesOf(data)), encoding),
  hmacSha256: (key, data, encoding) => encode(pureHmacSha256(key, bytesOf(data)), encoding),
};
