/**
 * Whether bytes are valid UTF-8, without importing `node:buffer`: rpc-frame's root entry loads on
 * every runtime (a fetch handler's bundle holds it), and only the Node-side frame decoder asks.
 * Node's native check when the runtime offers it (`process.getBuiltinModule`, Node ≥ 20.16),
 * else a fatal TextDecoder. Resolved on first use, so loading this module does nothing.
 */
type Check = (bytes: Uint8Array) => boolean;

let check: Check | undefined;

interface BuiltinHost {
  getBuiltinModule?: (id: string) => { isUtf8?: Check } | undefined;
}

function resolveCheck(): Check {
  const host = (globalThis as { process?: BuiltinHost }).process;
  const native = host?.getBuiltinModule?.('node:buffer')?.isUtf8;
  if (native !== undefined) return native;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return (bytes) => {
    try {
      decoder.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
}

export function isUtf8(bytes: Uint8Array): boolean {
  check ??= resolveCheck();
  return check(bytes);
}
