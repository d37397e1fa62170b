// Copy-bandwidth floors: the time to move an operator's bytes with a plain copy, in JS and inside wasm.
//
// An operator that reads `in` bytes and writes `out` bytes cannot beat a copy that moves the
// same traffic, so the floor copies (in + out) / 2 bytes from one buffer to another (reading
// half and writing half of the in + out bytes), measured in the same run as the kernels.

// (module (memory (export "mem") 1)
//   (func (export "copy") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.copy))
// memory.copy (bulk memory, 0xfc 0x0a) is the engine's memmove on the wasm heap.
const COPY_WASM = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x07, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00, // type: (i32 i32 i32) -> ()
  0x03, 0x02, 0x01, 0x00, // function 0 has type 0
  0x05, 0x03, 0x01, 0x00, 0x01, // one memory, 1 page minimum
  0x07, 0x0e, 0x02, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00, 0x04, 0x63, 0x6f, 0x70, 0x79, 0x00, 0x00,
  0x0a, 0x0e, 0x01, 0x0c, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfc, 0x0a, 0x00, 0x00, 0x0b,
]);

/** Bytes a floor copy moves for an operator reading `inBytes` and writing `outBytes`. */
export function floorCopyBytes(inBytes, outBytes) {
  return Math.ceil((inBytes + outBytes) / 2);
}

/** A wasm instance whose `copy(dst, src, n)` runs memory.copy inside its own memory. */
export async function wasmCopier() {
  const { instance } = await WebAssembly.instantiate(COPY_WASM);
  const { mem, copy } = instance.exports;
  return {
    /** A no-argument function copying `bytes` between two non-overlapping heap ranges. */
    prepare(bytes) {
      const need = 2 * bytes + 64;
      const have = mem.buffer.byteLength;
      if (need > have) mem.grow(Math.ceil((need - have) / 65536));
      // Touch both ranges once so that first-use page faults are not timed.
      new Uint8Array(mem.buffer, 0, need).fill(1);
      const src = 0;
      const dst = bytes + 64;
      return () => copy(dst, src, bytes);
    },
  };
}

/** A no-argument function copying `bytes` with TypedArray.prototype.set (JS memcpy). */
export function typedArrayCopier(bytes) {
  const src = new Uint8Array(bytes).fill(1);
  const dst = new Uint8Array(bytes);
  return () => dst.set(src);
}
