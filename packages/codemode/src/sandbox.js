/**
 * A QuickJS WebAssembly instance prepared for one execution, with its linear memory capped, and
 * the pool of memories that instances which never grew hand on.
 */
import releaseSyncDefault from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
import { INITIAL_MEMORY_BYTES } from './execution-codes.js';
import { GUEST_PRELUDE } from './guest-prelude.js';

/**
 * @typedef {import('quickjs-emscripten-core').QuickJSWASMModule} QuickJSWASMModule
 * @typedef {import('quickjs-emscripten-core').QuickJSContext} QuickJSContext
 * @typedef {import('quickjs-emscripten-core').QuickJSRuntime} QuickJSRuntime
 * @typedef {import('quickjs-emscripten-core').QuickJSHandle} QuickJSHandle
 * @typedef {{
 *   shouldInterrupt(): boolean,
 *   onBridge(kind: QuickJSHandle, a: QuickJSHandle, b: QuickJSHandle): QuickJSHandle | undefined,
 * }} SandboxOwner
 * @typedef {{
 *   module: QuickJSWASMModule,
 *   memory: WebAssembly.Memory,
 *   memoryBytes: number,
 *   runtime: QuickJSRuntime,
 *   context: QuickJSContext,
 *   bridge: QuickJSHandle,
 *   prelude: QuickJSHandle,
 *   owner: SandboxOwner | undefined,
 * }} Sandbox
 */

/** The package's typings describe its CommonJS shape; the ESM default export is the variant itself. */
const releaseSync = /** @type {import('quickjs-emscripten-core').QuickJSSyncVariant} */ (
  /** @type {unknown} */ (releaseSyncDefault)
);
const PAGE = 65536;
/** QuickJS's own stack limit, well inside the worker's native stack so overflow stays a guest error. */
const MAX_STACK_BYTES = 256 * 1024;
/** Slack under the memory cap that still counts as "memory exhausted" for a thrown null. */
const OOM_SLACK_BYTES = 2 * 1024 * 1024;

/**
 * A fresh QuickJS instance whose linear memory cannot grow past `memoryBytes` (QuickJS's own limit
 * is not enforced in the WASM build, so the cap lives on the imported WebAssembly.Memory), with its
 * runtime, context, bridge and compiled shim ready. It serves exactly one execution; preparing it
 * ahead keeps instantiation and shim parsing off an execution's critical path.
 * @param {WebAssembly.Module} wasmModule
 * @param {number} memoryBytes
 * @returns {Promise<Sandbox>}
 */
export async function newSandbox(wasmModule, memoryBytes) {
  const memory = takeMemory(maximumPages(memoryBytes));
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmModule, wasmMemory: memory }),
  );
  /** @type {Sandbox} */
  const sandbox = /** @type {Sandbox} */ ({ module, memory, memoryBytes, owner: undefined });
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => sandbox.owner?.shouldInterrupt() ?? false);
  const context = runtime.newContext();
  sandbox.runtime = runtime;
  sandbox.context = context;
  sandbox.bridge = context.newFunction('bridge', (kind, a, b) => sandbox.owner?.onBridge(kind, a, b));
  sandbox.prelude = context.unwrapResult(context.evalCode(GUEST_PRELUDE, 'prelude.js'));
  return sandbox;
}

/**
 * True when the instance's memory is (nearly) at its cap: a thrown null or undefined then means
 * QuickJS could not even allocate its exception.
 * @param {Sandbox} sandbox
 * @param {number} memoryBytes
 */
export function memoryExhausted(sandbox, memoryBytes) {
  const cap = Math.max(INITIAL_MEMORY_BYTES, Math.floor(memoryBytes / PAGE) * PAGE);
  return sandbox.memory.buffer.byteLength >= cap - OOM_SLACK_BYTES;
}

/**
 * Offers a dead instance's memory for reuse. Only called once nothing can enter that instance
 * again (its execution has ended and quickjs-emscripten keeps no finalizers).
 * @param {Sandbox} sandbox
 */
export function recycleMemory(sandbox) {
  const memory = sandbox.memory;
  if (memory.buffer.byteLength !== INITIAL_MEMORY_BYTES) return;
  const pages = maximumPages(sandbox.memoryBytes);
  const list = recycledMemories.get(pages) ?? [];
  if (list.length >= MAX_RECYCLED_PER_SIZE) return;
  list.push(memory);
  recycledMemories.set(pages, list);
}

/** @param {number} memoryBytes */
function maximumPages(memoryBytes) {
  return Math.max(INITIAL_MEMORY_BYTES / PAGE, Math.floor(memoryBytes / PAGE));
}

/**
 * Linear memories of finished executions that never grew, by maximum page count. Allocating a
 * fresh 16 MiB memory (and collecting the dropped ones) costs more than zeroing one.
 * @type {Map<number, WebAssembly.Memory[]>}
 */
const recycledMemories = new Map();
const MAX_RECYCLED_PER_SIZE = 2;

/**
 * A memory for a new instance: a recycled one wiped to zeros (as a fresh one would be), else new.
 * @param {number} pages the maximum page count
 * @returns {WebAssembly.Memory}
 */
function takeMemory(pages) {
  const memory = recycledMemories.get(pages)?.pop();
  if (memory === undefined)
    return new WebAssembly.Memory({ initial: INITIAL_MEMORY_BYTES / PAGE, maximum: pages });
  new Uint8Array(memory.buffer).fill(0);
  return memory;
}
