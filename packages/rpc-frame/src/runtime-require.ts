/** A synchronous `require` where the runtime has one, without importing a Node built-in by name. */

export type RuntimeRequire = (specifier: string) => unknown;

/**
 * `require` resolving from `from` (pass `import.meta.url`) on Node 20.16+, Bun and Deno; undefined
 * elsewhere (workerd, browsers). It lets a package load an optional or rarely needed dependency on
 * first use, synchronously, instead of importing it at startup whether it is used or not. It is made
 * here, not on first use: making it is the test of whether the runtime really has one (workerd's
 * Node compatibility has `getBuiltinModule` but no module URL to resolve from).
 */
export function runtimeRequire(from: string): RuntimeRequire | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof runtime?.getBuiltinModule !== 'function') return undefined;
  try {
    const nodeModule = runtime.getBuiltinModule('node:module') as
      | { createRequire?: (from: string) => RuntimeRequire }
      | undefined;
    return nodeModule?.createRequire?.(from);
  } catch {
    return undefined;
  }
}
