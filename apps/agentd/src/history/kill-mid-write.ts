/**
 * A test hook for "kill -9 during a write" (apps/agentd/test/history-crash.test.ts). Off, and
 * absent, unless `TEST_AGENTD_KILL_MID_WRITE` names a marker (tests set it; nothing else should;
 * not an `AGENTD_*` name, which the config would refuse as unknown). Armed, the first store write
 * whose bytes hold the marker writes only up to the middle of it, then the process kills itself
 * with SIGKILL: a real write of a real record, cut by the kernel's kill, not a simulated tear.
 */
import { writeSync } from 'node:fs';

type KillMidWrite = (fd: number, buffer: Buffer) => void;

function armed(marker: string): KillMidWrite {
  return (fd, buffer) => {
    const at = buffer.indexOf(marker);
    if (at === -1) return;
    const cut = at + Math.floor(marker.length / 2);
    let done = 0;
    while (done < cut) done += writeSync(fd, buffer, done, cut - done);
    process.kill(process.pid, 'SIGKILL');
    // SIGKILL is not delivered synchronously everywhere: nothing after this point may run.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  };
}

const MARKER = process.env.TEST_AGENTD_KILL_MID_WRITE;

/** Undefined unless armed, so a store write pays one comparison for it and nothing else. */
export const killMidWrite: KillMidWrite | undefined =
  MARKER === undefined || MARKER === '' ? undefined : armed(MARKER);
