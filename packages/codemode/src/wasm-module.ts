/** Compiles the QuickJS WebAssembly module once per process; workers instantiate it per execution. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

let compiled: Promise<WebAssembly.Module> | undefined;

/** The compiled QuickJS release-sync module (shared with workers through `workerData`). */
export function quickJsModule(): Promise<WebAssembly.Module> {
  if (compiled === undefined) {
    const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
    compiled = readFile(path).then((bytes) => WebAssembly.compile(bytes));
    compiled.catch(() => {
      compiled = undefined;
    });
  }
  return compiled;
}
