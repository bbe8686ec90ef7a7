/** One repetition of one case: spawn, cold start, verification, tools/list, warmup, load at 1 and 32 in flight, CPU and RSS. */
import type { BenchCase } from './cases.js';
import { CATALOGUE } from './catalogue.js';
import type { RpcResponse } from './driver/ndjson-channel.js';
import { type LoadResult, percentile, runLoad } from './driver/run-load.js';
import { ServerChild, type SpawnOptions } from './driver/server-child.js';
import { openSession, type Session } from './driver/sessions.js';
import { expectedAnswers, INVALID_CALL, LOAD_CALL, VERIFY_SCRIPT } from './workload.js';

export interface Bounds {
  readonly warmupCalls: number;
  readonly warmupMs: number;
  readonly loadCalls: number;
  readonly loadMs: number;
  readonly listSamples: number;
}

export interface ListingResult {
  readonly tools: number;
  readonly pages: number;
  readonly bytes: number;
  readonly p50Ms: number;
}

export interface CaseRep {
  readonly coldMs: number;
  readonly verified: number;
  readonly listing?: ListingResult;
  readonly sequential?: LoadResult;
  readonly concurrent?: LoadResult;
  /** Server CPU µs per call during the 32-in-flight load. */
  readonly cpuUsPerCall?: number;
  readonly peakRssMb?: number;
}

const EXPECTED = expectedAnswers();
const CODE_MODE_CALL = {
  name: 'execute',
  arguments: { code: "return await api.query('user.get', { id: 'user-7' });" },
};

function describe(response: RpcResponse): string {
  return JSON.stringify(response).slice(0, 300);
}

function answerText(response: RpcResponse, what: string): string {
  const result = response.result;
  const content = result?.content as { type?: string; text?: string }[] | undefined;
  const text = content?.[0]?.text;
  if (result === undefined || result.isError === true || typeof text !== 'string') {
    throw new Error(`${what}: not a successful text result: ${describe(response)}`);
  }
  return text;
}

function checkText(response: RpcResponse, expected: string, what: string): void {
  const text = answerText(response, what);
  if (text !== expected)
    throw new Error(`${what}: wrong answer ${JSON.stringify(text)}, expected ${expected}`);
}

async function call(session: Session, tool: { name: string; arguments: Record<string, unknown> }) {
  return session.request('tools/call', { name: tool.name, arguments: tool.arguments });
}

async function verifyCatalogue(session: Session): Promise<number> {
  for (const [i, tool] of VERIFY_SCRIPT.entries()) {
    checkText(
      await call(session, tool),
      EXPECTED.verify[i] as string,
      `${tool.name} ${JSON.stringify(tool.arguments)}`,
    );
  }
  const refused = await call(session, INVALID_CALL);
  if (refused.error === undefined && refused.result?.isError !== true) {
    throw new Error(`a call without its required argument was not refused: ${describe(refused)}`);
  }
  return VERIFY_SCRIPT.length + 1;
}

/** Code Mode runs the same operation through `execute`; its value is the handler's JSON text. */
async function verifyCodeMode(session: Session): Promise<number> {
  const text = answerText(await call(session, CODE_MODE_CALL), 'execute');
  const value: unknown = JSON.parse(text);
  const record = typeof value === 'string' ? value : JSON.stringify(value);
  if (record !== EXPECTED.load) throw new Error(`execute: wrong answer ${text}, expected ${EXPECTED.load}`);
  return 1;
}

async function listAll(session: Session): Promise<{ tools: Record<string, unknown>[]; pages: number }> {
  const tools: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const response = await session.request('tools/list', cursor === undefined ? {} : { cursor });
    const result = response.result;
    if (result === undefined || !Array.isArray(result.tools))
      throw new Error(`tools/list failed: ${describe(response)}`);
    tools.push(...(result.tools as Record<string, unknown>[]));
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
    pages++;
  } while (cursor !== undefined);
  return { tools, pages };
}

function checkListing(tools: Record<string, unknown>[], codeMode: boolean): void {
  const names = tools.map((t) => String(t.name)).sort();
  const expected = codeMode ? ['execute', 'search'] : CATALOGUE.map((t) => t.name).sort();
  if (names.join(',') !== expected.join(',')) {
    throw new Error(`tools/list names ${names.length} differ from the expected ${expected.length}`);
  }
}

async function measureListing(session: Session, samples: number, codeMode: boolean): Promise<ListingResult> {
  const { tools, pages } = await listAll(session);
  checkListing(tools, codeMode);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await listAll(session);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return {
    tools: tools.length,
    pages,
    bytes: Buffer.byteLength(JSON.stringify(tools)),
    p50Ms: percentile(times, 50),
  };
}

async function startAndCall(benchCase: BenchCase, spawn: SpawnOptions) {
  const started = performance.now();
  const child = new ServerChild(benchCase.impl, benchCase.transport, spawn);
  try {
    const session = await openSession(await child.endpoint(), benchCase.flavour);
    if (benchCase.impl === 'agentd-codemode') await verifyCodeMode(session);
    else checkText(await call(session, LOAD_CALL), EXPECTED.load, 'first call');
    return { child, session, coldMs: performance.now() - started };
  } catch (error) {
    await child.stop();
    throw new Error(`${benchCase.id}: ${(error as Error).message}\n${child.stderrTail}`, { cause: error });
  }
}

/** Spawn → first successful tools/call, then stop. */
export async function coldStart(benchCase: BenchCase, spawn: SpawnOptions): Promise<number> {
  const { child, session, coldMs } = await startAndCall(benchCase, spawn);
  session.close();
  await child.stop();
  return coldMs;
}

export async function measureCase(
  benchCase: BenchCase,
  spawn: SpawnOptions,
  bounds: Bounds,
): Promise<CaseRep> {
  const { child, session, coldMs } = await startAndCall(benchCase, spawn);
  try {
    const codeMode = benchCase.impl === 'agentd-codemode';
    let verified = 1;
    if (benchCase.validates && !codeMode) verified += await verifyCatalogue(session);
    const listing =
      benchCase.listing === undefined
        ? undefined
        : await measureListing(session, bounds.listSamples, codeMode);
    if (!benchCase.load) return { coldMs, verified, ...(listing && { listing }) };

    const loadCall = async () => checkText(await call(session, LOAD_CALL), EXPECTED.load, 'load call');
    await runLoad(loadCall, { inFlight: 8, maxCalls: bounds.warmupCalls, maxMs: bounds.warmupMs });
    const sequential = await runLoad(loadCall, {
      inFlight: 1,
      maxCalls: bounds.loadCalls,
      maxMs: bounds.loadMs,
    });
    const cpuBefore = child.cpuSeconds();
    const concurrent = await runLoad(loadCall, {
      inFlight: 32,
      maxCalls: bounds.loadCalls,
      maxMs: bounds.loadMs,
    });
    const cpuUsPerCall = ((child.cpuSeconds() - cpuBefore) * 1e6) / concurrent.calls;
    verified += sequential.calls + concurrent.calls;
    return {
      coldMs,
      verified,
      ...(listing && { listing }),
      sequential,
      concurrent,
      cpuUsPerCall,
      peakRssMb: child.peakRssMb(),
    };
  } catch (error) {
    throw new Error(`${benchCase.id}: ${(error as Error).message}\n${child.stderrTail}`, { cause: error });
  } finally {
    session.close();
    await child.stop();
  }
}
