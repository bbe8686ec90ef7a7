/** Worker-thread entry: runs many executions side by side, each in its own QuickJS instance. */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import {
  CONTROL_HANDLED,
  CONTROL_NOTIFY,
  CONTROL_POSTED,
  CONTROL_RECEIVED,
  CONTROL_SINCE,
  ExecuteErrorCode,
} from './execution-codes.js';
import { Execution } from './quickjs-execution.js';
import { newSandbox } from './sandbox.js';

/**
 * @typedef {import('./worker-protocol.js').ToWorker} ToWorker
 * @typedef {import('./worker-protocol.js').FromWorker} FromWorker
 * @typedef {import('./worker-protocol.js').RunMessage} RunMessage
 * @typedef {import('./sandbox.js').Sandbox} Sandbox
 */

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const { wasmModule, defaultMemoryBytes, control, epoch, nice } =
  /** @type {{ wasmModule: WebAssembly.Module, defaultMemoryBytes: number, control: Int32Array, epoch: number, nice: number }} */ (
    workerData
  );

lowerPriority(nice);

/**
 * Lowers this thread's OS scheduling priority (Linux: setpriority on the thread's own id), so
 * restricted callers' CPU-bound scripts yield the cores to everything else. Raising it back needs
 * privileges, which is why a worker keeps one lane for life. Best effort elsewhere.
 * @param {number} value
 */
function lowerPriority(value) {
  if (!(value > 0) || process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, value);
  } catch {
    // No /proc or not permitted: the worker runs at normal priority.
  }
}

/** @type {Map<number, Execution>} */
const executions = new Map();
/** @type {Set<number>} executions waiting for their instance */
const starting = new Set();
/** @type {Set<number>} executions told to stop before their instance was ready */
const stoppedEarly = new Set();

/** One instance kept ready so an execution does not wait for instantiation (it is used once). */
/** @type {Promise<Sandbox> | undefined} */
let spare;

function prepareSpare() {
  spare = newSandbox(wasmModule, defaultMemoryBytes);
  spare.catch(() => {
    spare = undefined;
  });
}

/** @param {FromWorker} message */
function post(message) {
  port.postMessage(message);
}

/**
 * @param {number} memoryBytes
 * @returns {Promise<Sandbox>}
 */
function takeSandbox(memoryBytes) {
  if (memoryBytes !== defaultMemoryBytes || spare === undefined) return newSandbox(wasmModule, memoryBytes);
  const ready = spare;
  spare = undefined;
  setImmediate(prepareSpare);
  return ready;
}

/** A wake (run or reply) starts: the runner reads how long the worker has been on it. */
function received() {
  Atomics.store(control, CONTROL_SINCE, Math.floor(performance.timeOrigin + performance.now() - epoch));
  Atomics.add(control, CONTROL_RECEIVED, 1);
}

/** One wake (run or reply) is fully handled; tell a waiting runner when nothing is left to run. */
function handled() {
  const count = Atomics.add(control, CONTROL_HANDLED, 1) + 1;
  // Counted before the notify flag is read: the runner sets the flag before re-reading the count.
  if (Atomics.load(control, CONTROL_NOTIFY) !== 0 && count === Atomics.load(control, CONTROL_POSTED)) {
    post({ type: 'parked' });
  }
}

/** @param {RunMessage} message */
async function run(message) {
  received();
  try {
    await start(message);
  } finally {
    handled();
  }
}

/** @param {RunMessage} message */
async function start(message) {
  /** @type {Sandbox} */
  let sandbox;
  starting.add(message.execId);
  try {
    sandbox = await takeSandbox(message.limits.memoryBytes);
  } catch (thrown) {
    starting.delete(message.execId);
    stoppedEarly.delete(message.execId);
    const text = thrown instanceof Error ? thrown.message : String(thrown);
    post({
      type: 'done',
      execId: message.execId,
      outcome: {
        ok: false,
        error: { code: ExecuteErrorCode.SandboxError, message: `Sandbox failed to start: ${text}` },
        logs: [],
      },
    });
    return;
  }
  starting.delete(message.execId);
  const execution = new Execution(sandbox, message, post, () => executions.delete(message.execId));
  executions.set(message.execId, execution);
  if (stoppedEarly.delete(message.execId)) {
    execution.stop();
    return;
  }
  execution.start();
}

port.on('message', (/** @type {ToWorker} */ message) => {
  switch (message.type) {
    case 'run':
      void run(message);
      break;
    case 'reply':
      received();
      try {
        executions.get(message.execId)?.reply(message.callId, message.envelope);
      } finally {
        handled();
      }
      break;
    case 'stop': {
      const execution = executions.get(message.execId);
      if (execution !== undefined) execution.stop();
      else if (starting.has(message.execId)) stoppedEarly.add(message.execId);
      break;
    }
  }
});

prepareSpare();
