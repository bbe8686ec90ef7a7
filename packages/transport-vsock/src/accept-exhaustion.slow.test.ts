/** Out of fds at accept: the listener reports it, pauses, and resumes serving once fds free up. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { tempSocketPath } from './test-support/unix-stand-in.js';

// `listenOn` is internal (the built package is one bundle): the child gets this module on its own,
// one directory below the package root, where the addon loader looks for the package.
const dist = fileURLToPath(new URL('../build/vsock-listener.js', import.meta.url));

beforeAll(async () => {
  await build({
    entryPoints: [fileURLToPath(new URL('./vsock-listener.ts', import.meta.url))],
    outfile: dist,
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    logLevel: 'warning',
  });
});
const CONNECTIONS = 60;

// Runs in a child with a low RLIMIT_NOFILE: accepts until EMFILE, then frees its sockets.
const CHILD = `
const { listenOn } = await import(process.argv[1]);
const listener = listenOn({ family: 'unix', path: process.argv[2] });
const held = [];
let accepted = 0;
const errors = [];
listener.on('acceptError', (error) => {
  errors.push(error.code);
  for (const socket of held.splice(0)) socket.destroy();
});
listener.on('connection', (socket) => {
  accepted += 1;
  held.push(socket);
  if (accepted === ${CONNECTIONS}) {
    console.log(JSON.stringify({ accepted, errors }));
    process.exit(0);
  }
});
console.log('listening');
`;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

it('reports EMFILE as acceptError, backs off, and accepts the waiting connections later', async () => {
  expect(existsSync(dist)).toBe(true);
  const path = tempSocketPath();
  cleanups.push(path.cleanup);
  const child = execFile('sh', [
    '-c',
    `ulimit -n 48 && exec "$0" --input-type=module -e "$1" "$2" "$3"`,
    process.execPath,
    CHILD,
    dist,
    path.path,
  ]);
  cleanups.push(() => child.kill());
  const lines: string[] = [];
  const output = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      if (lines.includes('listening')) resolve('listening');
    });
    child.on('exit', (code) => reject(new Error(`child exited ${code}: ${lines.join('\n')}`)));
  });
  await output;
  const clients = Array.from({ length: CONNECTIONS }, () => net.connect(path.path).on('error', () => {}));
  cleanups.push(() => {
    for (const client of clients) client.destroy();
  });
  const [code] = await new Promise<[number | null]>((resolve) => child.on('exit', (c) => resolve([c])));
  expect(code).toBe(0);
  const result = JSON.parse(lines.at(-1) ?? '{}') as { accepted: number; errors: string[] };
  expect(result.accepted).toBe(CONNECTIONS);
  expect(result.errors.length).toBeGreaterThan(0);
  expect(new Set(result.errors)).toEqual(new Set(['EMFILE']));
});
