/** The knobs of a CodeModeRunner: pool size, queueing, fairness across principals, sandbox defaults. */
import type { SandboxLimits } from './sandbox-limits.js';
import type { QuickJsWasm } from './wasm-module.js';

export interface CodeModeRunnerOptions {
  /** Worker threads kept (default: available parallelism, clamped to 2–4). */
  workers?: number;
  /**
   * Upper bound on threads, overflow included (default 8, at least `workers`). An execution never
   * joins a worker that is computing; when every worker is, an overflow thread is started, and
   * once this bound is reached the execution waits in the queue instead.
   */
  maxWorkers?: number;
  /** How long an overflow thread may sit idle before it is terminated (default 1000 ms). */
  overflowIdleMs?: number;
  /**
   * How long the busy workers must have been computing before an overflow thread is started
   * (default 50 ms): a burst of short scripts waits its turn instead of starting threads.
   */
  overflowAfterMs?: number;
  /** Defaults for every execution; each request may override them. */
  limits?: Partial<SandboxLimits>;
  /** Executions running at once on one worker; more wait in the queue (default 8). Worst-case sandbox memory is maxWorkers × this × memoryBytes. */
  maxConcurrentPerWorker?: number;
  /** Executions waiting for a worker; beyond it `execute` answers `busy` (default 1000). */
  maxQueued?: number;
  /** Executions one principal may run at once; its others wait their turn (default 4). */
  maxRunningPerPrincipal?: number;
  /** Executions one principal may have waiting; beyond it `execute` answers `busy` (default 64). */
  maxQueuedPerPrincipal?: number;
  /** How long an execution may wait for a worker before it ends with `busy` (default 10 000 ms). */
  maxQueueWaitMs?: number;
  /**
   * Threads reserved for the priority lane (default 1). Each worker serves one lane: standard-lane
   * executions (restricted callers) get at most `maxWorkers` minus this many threads, so a
   * priority execution never waits behind their CPU hogs.
   */
  priorityWorkers?: number;
  /**
   * OS niceness of standard-lane worker threads (Linux; default 10, 0 = unchanged): their CPU hogs
   * then yield the cores to the priority lane and the server's main thread.
   */
  standardNice?: number;
  /** How long a stopped execution may take to unwind before its worker is terminated (default 1000 ms). */
  stopGraceMs?: number;
  /**
   * The QuickJS WebAssembly module: compiled, its bytes, or its file (path or `file:` URL).
   * Default: the file of `@jitl/quickjs-wasmfile-release-sync`, found through `node_modules`;
   * a bundled server passes it (README, "Bundling").
   */
  wasm?: QuickJsWasm;
  /**
   * The sandbox worker script (`@agentd/codemode/sandbox-worker`). Default: `sandbox-worker.js`
   * beside this module, which in a bundle means beside the bundle.
   */
  workerUrl?: URL | string;
}
