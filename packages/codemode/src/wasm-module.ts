/** Compiles the QuickJS WebAssembly module once per process; workers instantiate it per execution. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/**
 * A compiled `WebAssembly.Module`, opaque on this side (lib ES2023 and @types/node 20 declare no
 * WebAssembly types, and packages that type-check these sources must not need them).
 */
export interface CompiledModule {
  readonly __compiledWasmModule?: never;
}

const wasm = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledModule> } }
).WebAssembly;

let compiled: Promise<CompiledModule> | undefined;

/** The compiled QuickJS release-sync module (shared with workers through `workerData`). */
export function quickJsModule(): Promise<CompiledModule> {
  if (compiled === undefined) {
    const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
    compiled = readFile(path).then((bytes) => wasm.compile(bytes));
    compiled.catch(() => {
      compiled = undefined;
    });
  }
  return compiled;
}
