/** Compiles the QuickJS WebAssembly module once per source; workers instantiate it per execution. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { LocalError } from '@agentd/rpc-frame';
import type { CodeModeErrorCode } from './local-errors.js';

/**
 * A compiled `WebAssembly.Module`, opaque on this side (lib ES2023 and @types/node 20 declare no
 * WebAssembly types, and packages that type-check these sources must not need them).
 */
export interface CompiledModule {
  readonly __compiledWasmModule?: never;
}

/**
 * Where the QuickJS WebAssembly module comes from: already compiled (`WebAssembly.Module`), its
 * bytes, or its file (a path or a `file:` URL). A bundled server passes one of these, since the
 * default lookup through `node_modules` does not survive bundling (see the README, Bundling).
 */
export type QuickJsWasm = CompiledModule | Uint8Array | ArrayBuffer | URL | string;

const WASM_SPECIFIER = '@jitl/quickjs-wasmfile-release-sync/wasm';

const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Module: abstract new (...args: never[]) => CompiledModule;
      compile(bytes: Uint8Array | ArrayBuffer): Promise<CompiledModule>;
    };
  }
).WebAssembly;

/**
 * The absolute path of the QuickJS WebAssembly file this package uses, for build scripts that
 * copy it next to a bundle. Throws when the package's dependencies are not installed.
 */
export function quickJsWasmPath(): string {
  return createRequire(import.meta.url).resolve(WASM_SPECIFIER);
}

function compileFrom(source: QuickJsWasm | undefined): Promise<CompiledModule> {
  if (source === undefined) {
    let path: string;
    try {
      path = quickJsWasmPath();
    } catch (error) {
      const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new LocalError<CodeModeErrorCode>(
        'invalid_wasm',
        `Code Mode cannot find its QuickJS WebAssembly file (${WASM_SPECIFIER}: ${detail}). ` +
          'A bundled server must hand it over: new CodeModeRunner({ wasm }) with the file, its bytes or a ' +
          'compiled WebAssembly.Module (see @agentd/codemode README, "Bundling")',
      );
    }
    return readFile(path).then((bytes) => wasm.compile(bytes));
  }
  if (source instanceof wasm.Module) return Promise.resolve(source);
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) return wasm.compile(source);
  if (typeof source === 'string' || source instanceof URL) {
    return readFile(source).then(
      (bytes) => wasm.compile(bytes),
      (error: unknown) => {
        const detail = error instanceof Error ? error.message : String(error);
        throw new LocalError<CodeModeErrorCode>(
          'invalid_wasm',
          `Code Mode cannot read its QuickJS WebAssembly file: ${detail}`,
        );
      },
    );
  }
  return Promise.reject(
    new LocalError<CodeModeErrorCode>(
      'invalid_wasm',
      'wasm must be a WebAssembly.Module, its bytes (Uint8Array, ArrayBuffer), a path or a URL',
    ),
  );
}

const byObject = new WeakMap<object, Promise<CompiledModule>>();
const byLocation = new Map<string, Promise<CompiledModule>>();
const DEFAULT_KEY = '\0default';

/**
 * The compiled QuickJS release-sync module (shared with workers through `workerData`), compiled
 * once per source; a failed attempt is forgotten so the next execution tries again.
 */
export function quickJsModule(source?: QuickJsWasm): Promise<CompiledModule> {
  const isObject = typeof source === 'object' && !(source instanceof URL);
  const key = isObject ? undefined : source === undefined ? DEFAULT_KEY : String(source);
  const cached = isObject ? byObject.get(source) : byLocation.get(key as string);
  if (cached !== undefined) return cached;
  const compiled = compileFrom(source);
  const forget = () => (isObject ? byObject.delete(source) : byLocation.delete(key as string));
  compiled.catch(forget);
  if (isObject) byObject.set(source, compiled);
  else byLocation.set(key as string, compiled);
  return compiled;
}
