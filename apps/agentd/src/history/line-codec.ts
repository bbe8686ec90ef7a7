/**
 * One line of a store file: `<crc32 of the JSON, 8 hex> <JSON>\n`. JSON never holds a raw newline,
 * so a line is one record; the checksum tells a torn or damaged line from a whole one.
 */
import * as zlib from 'node:zlib';

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (the zlib one) of bytes[start, end), in JavaScript: for a Node without `zlib.crc32`. */
export function crc32Js(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++)
    crc = (TABLE[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// zlib.crc32 arrived in Node 20.15 (agentd supports 20.6): native where there, every line of history is summed.
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

function crc32(bytes: Uint8Array, start: number, end: number): number {
  return nativeCrc32 === undefined ? crc32Js(bytes, start, end) : nativeCrc32(bytes.subarray(start, end));
}

const NEWLINE = 0x0a;
const HEADER = 9; // 8 hex digits and a space

export function encodeLine(json: string): Buffer {
  // The JSON is written in place after the header's room, then summed there: no second copy.
  const bodyBytes = Buffer.byteLength(json, 'utf8');
  const line = Buffer.allocUnsafe(HEADER + bodyBytes + 1);
  line.write(json, HEADER, 'utf8');
  line.write(
    crc32(line, HEADER, HEADER + bodyBytes)
      .toString(16)
      .padStart(8, '0'),
    0,
    'latin1',
  );
  line[8] = 0x20;
  line[line.length - 1] = NEWLINE;
  return line;
}

/** One whole line found in a buffer: its JSON (checksum verified) and where it sits. */
export interface ScannedLine {
  offset: number;
  length: number;
  json: string;
}

export interface ScanResult {
  lines: ScannedLine[];
  /** Bytes of the buffer up to the end of its last whole (newline-ended) line. */
  consumed: number;
  /** Whole lines that fail their checksum: damage (a torn write leaves no newline after it). */
  damaged: number;
  /** Offset just past the last good line. */
  goodEnd: number;
}

function verify(buffer: Buffer, start: number, end: number): string | undefined {
  if (end - start < HEADER + 1 || buffer[start + 8] !== 0x20) return undefined;
  const sum = Number.parseInt(buffer.toString('latin1', start, start + 8), 16);
  if (!Number.isFinite(sum) || sum !== crc32(buffer, start + HEADER, end)) return undefined;
  const json = buffer.toString('utf8', start + HEADER, end);
  try {
    JSON.parse(json);
  } catch {
    return undefined;
  }
  return json;
}

/** Scans the whole lines of `buffer`, which starts at file offset `base`; the rest is left over. */
export function scanLines(buffer: Buffer, base: number): ScanResult {
  const lines: ScannedLine[] = [];
  let start = 0;
  let damaged = 0;
  let goodEnd = base;
  for (;;) {
    const end = buffer.indexOf(NEWLINE, start);
    if (end < 0) break;
    const json = verify(buffer, start, end);
    if (json === undefined) damaged++;
    else {
      lines.push({ offset: base + start, length: end + 1 - start, json });
      goodEnd = base + end + 1;
    }
    start = end + 1;
  }
  return { lines, consumed: start, damaged, goodEnd };
}
