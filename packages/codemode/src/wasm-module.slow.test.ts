/** Tests for locating and compiling the QuickJS WebAssembly module from each kind of source. */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import { quickJsModule, quickJsWasmPath } from './wasm-module.js';

const path = quickJsWasmPath();
const isModule = (value: unknown) => Object.prototype.toString.call(value) === '[object WebAssembly.Module]';

describe('quickJsModule', () => {
  it('compiles the default file once per process', async () => {
    const first = quickJsModule();
    expect(quickJsModule()).toBe(first);
    expect(isModule(await first)).toBe(true);
  });

  it('compiles from a path, a file URL, bytes and an ArrayBuffer, and passes a compiled module through', async () => {
    const bytes = readFileSync(path);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    for (const source of [path, pathToFileURL(path), new Uint8Array(bytes), buffer]) {
      expect(isModule(await quickJsModule(source))).toBe(true);
    }
    const compiled = await quickJsModule(path);
    expect(await quickJsModule(compiled)).toBe(compiled);
    expect(quickJsModule(path)).toBe(quickJsModule(path));
  });

  it('says what is wrong with a missing file or a value of the wrong kind, and tries again next time', async () => {
    const failed = quickJsModule('/nonexistent/quickjs.wasm');
    await expect(failed).rejects.toThrow(/cannot read its QuickJS WebAssembly file: ENOENT/);
    expect(quickJsModule('/nonexistent/quickjs.wasm')).not.toBe(failed);
    await expect(quickJsModule('/nonexistent/quickjs.wasm')).rejects.toThrow(/ENOENT/);
    await expect(quickJsModule(42 as unknown as string)).rejects.toThrow(/wasm must be a WebAssembly.Module/);
    await expect(quickJsModule(42 as unknown as string)).rejects.toMatchObject({ code: 'invalid_wasm' });
  });
});

describe('CodeModeRunner with a wasm source and a worker URL', () => {
  it('runs a script with the module handed over as bytes and the worker given by URL', async () => {
    const runner = new CodeModeRunner({
      workers: 1,
      wasm: new Uint8Array(readFileSync(path)),
      workerUrl: new URL('./sandbox-worker.js', import.meta.url),
    });
    try {
      const outcome = await runner.execute({
        code: 'return 6 * 7;',
        namespace: 'agentd',
        operations: [],
        call: async () => null,
      });
      expect(outcome).toMatchObject({ ok: true, value: 42 });
    } finally {
      await runner.close();
    }
  });

  it('answers sandbox_error naming the file when the wasm cannot be read', async () => {
    const runner = new CodeModeRunner({ workers: 1, wasm: '/nonexistent/quickjs.wasm' });
    try {
      const outcome = await runner.execute({
        code: 'return 1;',
        namespace: 'agentd',
        operations: [],
        call: async () => null,
      });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'sandbox_error' } });
      expect(outcome.ok === false && outcome.error.message).toContain('/nonexistent/quickjs.wasm');
    } finally {
      await runner.close();
    }
  });
});
