/** The few WebAssembly globals used here (Node has them at runtime; @types/node 20 and lib ES2023 do not declare them). */
declare namespace WebAssembly {
  type Module = {};
  var Module: { prototype: Module; new (bytes: ArrayBufferView | ArrayBuffer): Module };
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  interface Memory {
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  var Memory: { prototype: Memory; new (descriptor: MemoryDescriptor): Memory };
  function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>;
}
