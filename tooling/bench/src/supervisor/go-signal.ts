/** The supervisor case's clock and start signal, shared by the driver, the agent and the readers. */
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** Wall-clock ms with sub-ms precision, comparable across processes on one machine. */
export const now = (): number => performance.timeOrigin + performance.now();

/**
 * A reader's side of the start (the floor, agentd's callers): prints `ready`, waits for
 * `go START_AT SPREAD_MS` on stdin, and returns when run i of `runs` starts streaming:
 * START_AT + i × SPREAD_MS / RUNS.
 */
export async function awaitGo(runs: number): Promise<(i: number) => number> {
  const stdin = createInterface({ input: process.stdin });
  process.stdout.write('ready\n');
  const [go] = (await once(stdin, 'line')) as [string];
  stdin.close();
  const [startAt, spread] = go.split(' ').slice(1).map(Number) as [number, number];
  return (i) => startAt + (i * spread) / runs;
}
