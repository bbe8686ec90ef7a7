/** A synchronous `require` where the runtime has one, without importing a Node built-in by name. */

export type RuntimeRequire = (specifier: string) => unknown;

type ModuleBuiltin = { createRequire?: (from: string) => RuntimeRequire } | undefined;

/**
 * `require` resolving from `from` (pass `import.meta.url`) on Node 20.16+, Bun and Deno; undefined
 * elsewhere (workerd, browsers). It lets a package load an optional or rarely needed dependency on
 * first use, synchronously, instead of importing it at startup whether it is used or not. The
 * real `require` is made on the first call: making one costs about half a millisecond at startup.
 */
export function runtimeRequire(from: string): RuntimeRequire | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof runtime?.getBuiltinModule !== 'function') return undefined;
  let nodeModule: ModuleBuiltin;
  try {
    nodeModule = runtime.getBuiltinModule('node:module') as ModuleBuiltin;
  } catch {
    return undefined;
  }
  const createRequire = nodeModule?.createRequire;
  if (typeof createRequire !== 'function') return undefined;
  let made: RuntimeRequire | undefined;
  return (specifier) => {
    made ??= createRequire(from);
    return made(specifier);
  };
}
