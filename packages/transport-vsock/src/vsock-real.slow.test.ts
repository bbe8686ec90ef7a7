/** The real AF_VSOCK calls: what works on any vsock machine, plus an end-to-end run where loopback exists. */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { LocalError } from '@agentd/rpc-frame';
import { createServerCore, silentLogger } from '@agentd/server';
import { NdjsonClient, toolHandler } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { connectVsock } from './connect-vsock.js';
import { VMADDR_CID_ANY, VMADDR_CID_HOST, VMADDR_CID_LOCAL, VMADDR_PORT_ANY } from './constants.js';
import { localCid } from './local-cid.js';
import { serveVsock } from './serve-vsock.js';
import { openFdCount } from './test-support/unix-stand-in.js';
import { bindVsock } from './vsock-listener.js';
import type { VsockSocket } from './vsock-socket.js';

const hasVsock = existsSync('/dev/vsock');
const hasLoopback = hasVsock && existsSync('/sys/module/vsock_loopback');
if (!hasVsock) console.log('[transport-vsock] skipping real AF_VSOCK tests: this machine has no /dev/vsock');
if (hasVsock && !hasLoopback) {
  console.log(
    '[transport-vsock] skipping the vsock end-to-end test: no vsock_loopback (CID 1) on this machine',
  );
}

/** The same ioctl, done by another program, to check localCid() against. */
function localCidFromPython(): number {
  const script =
    'import fcntl,struct,os\nfd=os.open("/dev/vsock",os.O_RDONLY)\nb=bytearray(4)\nfcntl.ioctl(fd,0x7b9,b)\nprint(struct.unpack("I",b)[0])';
  // The system python when present: version-manager shims (pyenv) take seconds to start.
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  return Number(execFileSync(python, ['-c', script], { encoding: 'utf8' }).trim());
}

describe.skipIf(!hasVsock)('AF_VSOCK on this machine', () => {
  it('localCid() reads the IOCTL_VM_SOCKETS_GET_LOCAL_CID value', () => {
    const cid = localCid();
    expect(Number.isInteger(cid)).toBe(true);
    expect(cid).toBe(localCidFromPython());
  });

  it('binds and listens on VMADDR_CID_ANY, reporting the chosen port', () => {
    const listener = bindVsock({ port: VMADDR_PORT_ANY });
    const { cid, port } = listener.address();
    expect(cid).toBe(VMADDR_CID_ANY);
    expect(port).not.toBe(VMADDR_PORT_ANY);
    expect(listener.listening).toBe(true);
    listener.close();
    expect(listener.listening).toBe(false);
  });

  it('refuses a port that is taken with EADDRINUSE, and frees it on close', () => {
    const first = bindVsock({ port: VMADDR_PORT_ANY });
    const port = first.address().port!;
    let caught: NodeJS.ErrnoException | undefined;
    try {
      bindVsock({ port }).close();
    } catch (error) {
      caught = error as NodeJS.ErrnoException;
    }
    expect(caught?.code).toBe('EADDRINUSE');
    expect(caught?.message).toMatch(/^bind EADDRINUSE/);
    first.close();
    const again = bindVsock({ cid: VMADDR_CID_ANY, port });
    expect(again.address().port).toBe(port);
    again.close();
  });

  it.each([
    [{ port: 0 }, /port must be an integer in 1\.\.4294967295, got 0/],
    [{ port: -1 }, /port must be an integer/],
    [{ port: 1.5 }, /port must be an integer/],
    [{ port: Number.NaN }, /port must be an integer/],
    [{ port: '5005' as unknown as number }, /port must be an integer/],
    [{ port: 5005, cid: 2 ** 32 }, /cid must be an integer/],
    [{ port: 5005, backlog: 0 }, /backlog must be a positive integer/],
  ])('refuses bad bind options %j', (options, reason) => {
    expect(() => bindVsock(options)).toThrow(reason);
    expect(() => bindVsock(options)).toThrow(LocalError);
  });

  it('refuses bad connect arguments synchronously', () => {
    expect(() => connectVsock(2, 0)).toThrow(/port must be an integer in 1\.\.4294967294, got 0/);
    expect(() => connectVsock(-1, 5)).toThrow(/cid must be an integer/);
    expect(() => connectVsock(VMADDR_CID_ANY, 5)).toThrow(/cid must be an integer/);
  });

  it.skipIf(hasLoopback)(
    'reports a connect to an unreachable CID as an error event and frees the fd',
    async () => {
      const listener = bindVsock({ port: VMADDR_PORT_ANY });
      const before = openFdCount();
      // Without loopback, the guest's own CID has no route: connect(2) fails (ENODEV here).
      const socket = connectVsock(localCid(), listener.address().port!);
      const closed = new Promise((resolve) => socket.on('close', resolve));
      const [error] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
      expect(error.syscall).toBe('connect');
      expect(error.code).toMatch(/^E[A-Z]+$/);
      expect(error.message).toMatch(/^connect E[A-Z]+: /);
      await closed;
      expect(openFdCount()).toBe(before);
      listener.close();
    },
  );

  it('reports an asynchronous connect failure (the host refusing a port) as an error event', async () => {
    // Nothing listens on a random high port on the host: the non-blocking connect ends in a
    // reset (or the kernel's 2 s connect timeout), delivered through the poll callback.
    const port = 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);
    const before = openFdCount();
    const socket = connectVsock(VMADDR_CID_HOST, port);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    expect(socket.connecting).toBe(true);
    const [error] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
    expect(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ENODEV']).toContain(error.code);
    expect(error.syscall).toBe('connect');
    await closed;
    expect(socket.destroyed).toBe(true);
    expect(openFdCount()).toBe(before);
  });

  it.skipIf(!hasLoopback)('serves a loopback connection end to end (CID 1)', async () => {
    const listener = bindVsock({ port: VMADDR_PORT_ANY });
    const accepted = once(listener, 'connection') as Promise<[VsockSocket]>;
    const client = connectVsock(VMADDR_CID_LOCAL, listener.address().port!);
    await once(client, 'connect');
    const [server] = await accepted;
    expect(server.remoteCid).toBe(VMADDR_CID_LOCAL);
    expect(typeof server.remotePort).toBe('number');
    server.on('data', (chunk: Buffer) => server.write(chunk));
    server.on('end', () => server.end());
    const echoed: Buffer[] = [];
    client.on('data', (chunk: Buffer) => echoed.push(chunk));
    client.end('over vsock');
    await once(client, 'end');
    expect(Buffer.concat(echoed).toString()).toBe('over vsock');
    listener.close();
  });

  it.skipIf(!hasLoopback)(
    'serves MCP over loopback vsock with the peer CID and port in attributes',
    async () => {
      const core = createServerCore({
        handler: toolHandler(),
        serverInfo: { name: 'v', version: '1' },
        logger: silentLogger,
      });
      const server = serveVsock(bindVsock({ port: VMADDR_PORT_ANY }), core);
      const socket = connectVsock(VMADDR_CID_LOCAL, server.listener.address().port!);
      await once(socket, 'connect');
      const client = new NdjsonClient(socket);
      const who = await client.modern('tools/call', { name: 'whoami' });
      expect(who.result?.structuredContent).toMatchObject({
        origin: 'management',
        transport: 'vsock',
        attributes: { cid: VMADDR_CID_LOCAL, port: socket.address().port },
      });
      socket.end();
      await server.close(1_000);
      await core.close();
    },
  );
});
