// One loaded module's wasm heap as the API uses it: budget checks before allocating, malloc with clear failures, copies in and out around a binding call, int64 shape scratch, and C++ statuses as exceptions.
import { arrayClass, DTYPE_NAMES } from './dtypes.mjs';
import { HeapTensor, disposedError } from './heap_tensor.mjs';
import { bytesString, detachedError, isDetached } from './messages.mjs';
import { HEAP_LIMIT, MAX_DIMS } from './plain_args.mjs';

// Calls that copy at least this much ask malloc how much is in use before allocating, so that
// a request that cannot fit next to live heap tensors fails before anything is allocated.
const BIG_REQUEST = 64 * 2 ** 20;
// Heap kept free for the module's own small allocations during a call (see ensureHeadroom).
export const HEADROOM = 64 * 1024;
const SCRATCH_SLOTS = 3; // the shapes of one shape query: its inputs' (slots 0 and 1) and the output's (slot 2)
/**
 * The call block of src/bindings/call_block.h (struct CallBlock, read by prepare and
 * _gridsample_call): byte offsets of its fields (core/prepared.mjs writes it).
 */
// Call blocks kept for the last distinct unprepared calls (core/prepared.mjs's blockCalls).
const CALL_BLOCKS = 4;
export const CALL_BLOCK = {
  bytes: 728, op: 0, mode: 4, padding: 8, align: 12, dtype: 16, rank: 24, shape: 32, sizeLen: 544, outRank: 548, size: 552, outShape: 592,
  space: 672, fillCount: 676, fill: 680, rowsHeight: 712, rowsBegin: 720,
};
/**
 * MultiScaleDeformableAttention's block (src/bindings/deformable_attention_bindings.cc's
 * DeformableBlock): byte offsets of its fields (core/deformable_block.mjs writes it). Per input
 * (value, sampling_locations, attention_weights) a data address, dtype, rank and `dims` int64
 * dimensions; `levelRoom` bytes after it hold the levels when they fit (16 levels with their
 * points listed).
 */
export const DEFORMABLE_BLOCK = {
  bytes: 848, data: 0, dtype: 12, rank: 24, levels: 36, levelCount: 40, pointsListed: 44, y: 48, sampling: 52, shape: 56, yShape: 824,
  dims: MAX_DIMS, levelRoom: 16 * 4 * 8,
};
// The block of a call that keeps none (heap.block): a call block, or a deformable one and its levels.
const ONE_CALL_BYTES = Math.max(CALL_BLOCK.bytes, DEFORMABLE_BLOCK.bytes + DEFORMABLE_BLOCK.levelRoom);

/**
 * A C++ status message as the JS function `fn` reports it: the library's messages start with
 * its operator's name ("GridSample: X: ..."), JS errors with the function that was called.
 */
export function libraryError(fn, message) {
  const colon = message.indexOf(': ');
  return new RangeError(`${fn}: ${colon >= 0 ? message.slice(colon + 2) : message}`);
}

// A call's copies of at most this many bytes in all share one allocation (see withHeap).
const ONE_BLOCK = 64 * 1024;

// "a", "a and b", "a, b and c".
function listed(names) {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export class WasmHeap {
  /**
   * `checkOnly`: withHeap() returns undefined once the call's budget is checked, allocating and
   * running nothing (the worker pool's checks in the caller's thread; see core/api.mjs checkOnly).
   * `newBuffer(bytes)`: an ArrayBuffer of `bytes` for a result that copyOut overwrites whole, so
   * its contents may be anything (Node.js: an allocation that skips zero-filling).
   */
  constructor(Module, { checkOnly = false, newBuffer = (bytes) => new ArrayBuffer(bytes) } = {}) {
    this.Module = Module;
    this.checkOnly = checkOnly;
    this.newBuffer = newBuffer;
    this.scratch = Module.allocate(SCRATCH_SLOTS * MAX_DIMS * 8);
    // Blocks: one for a call that keeps none (preparing, an image call, a deformable attention
    // call), then CALL_BLOCKS for the last calls (core/prepared.mjs).
    this.block = Module.allocate(ONE_CALL_BYTES + CALL_BLOCKS * CALL_BLOCK.bytes);
    if (!this.scratch || !this.block) throw new RangeError('load: cannot allocate the shape scratch space in the wasm heap');
    this.blocks = Array.from({ length: CALL_BLOCKS }, (_, i) => this.block + ONE_CALL_BYTES + i * CALL_BLOCK.bytes);
    // gridsample::DType codes by name, from the library's own ParseDType.
    this.dtypeCodes = {};
    for (const name of DTYPE_NAMES) {
      const code = Module.parseDType(name);
      if (code < 0) throw new TypeError(`load: the gridsample wasm does not know dtype ${name}: ${Module.takeLastError()}`);
      this.dtypeCodes[name] = code;
    }
    // Mode and padding codes the library has named so far (see core/library_rules.mjs).
    this.names = { mode: new Map(), padding: new Map() };
  }

  /** `values` as int64s in scratch slot `slot` (0 to 2); returns their heap address. */
  writeInt64s(slot, values) {
    const address = this.scratch + slot * MAX_DIMS * 8;
    const view = new BigInt64Array(this.Module.HEAPU8.buffer, address, values.length);
    for (let i = 0; i < values.length; ++i) view[i] = BigInt(values[i]);
    return address;
  }

  /** `count` int64s of scratch slot `slot` as numbers. */
  readInt64s(slot, count) {
    return Array.from(new BigInt64Array(this.Module.HEAPU8.buffer, this.scratch + slot * MAX_DIMS * 8, count), Number);
  }

  /** A typed array's bytes (at most MAX_DIMS * 8) in scratch slot `slot` (0 to 2); returns their heap address. */
  stage(slot, data) {
    const address = this.scratch + slot * MAX_DIMS * 8;
    this.Module.HEAPU8.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), address);
    return address;
  }

  /** `values` as doubles in scratch slot `slot` (0 to 2, MAX_DIMS values); returns their heap address. */
  writeFloat64s(slot, values) {
    return this.stage(slot, Float64Array.from(values));
  }

  /** `count` doubles of scratch slot `slot`. */
  readFloat64s(slot, count) {
    return Array.from(new Float64Array(this.Module.HEAPU8.buffer, this.scratch + slot * MAX_DIMS * 8, count));
  }

  /** A C++ status code: 0, or an error whose message the module hands over once. */
  check(fn, code) {
    if (code !== 0) throw libraryError(fn, this.Module.takeLastError());
  }

  /**
   * Before anything is allocated: the bytes a call or tensor() is about to allocate (`parts`,
   * [what, bytes] pairs) must fit in the 2 GiB wasm memory next to what is in use already.
   */
  checkBudget(fn, parts) {
    const total = parts.reduce((sum, [, bytes]) => sum + bytes, 0);
    if (total < BIG_REQUEST) return;
    const subject = parts.length === 1 ? parts[0][0] : 'the call';
    const list = parts.length > 1 ? ` for ${parts.map(([what, bytes]) => `${what} (${bytes})`).join(' + ')}` : '';
    if (total >= HEAP_LIMIT) {
      throw new RangeError(`${fn}: ${subject} would need ${bytesString(total)} in the wasm heap${list}; the wasm heap is limited to 2 GiB`);
    }
    const used = this.Module.heapUsed();
    if (total + used >= HEAP_LIMIT) {
      throw new RangeError(`${fn}: ${subject} would need ${bytesString(total)} in the wasm heap${list}, but ${bytesString(used)} of its 2 GiB are in use (heap tensors); dispose some or make the request smaller`);
    }
  }

  /** malloc, or a RangeError that says how full the heap is (fragmentation, static data). */
  allocate(fn, what, bytes) {
    const p = this.Module.allocate(bytes);
    if (!p) {
      throw new RangeError(`${fn}: could not allocate ${bytesString(bytes)} for ${what} in the wasm heap (${this.Module.heapUsed()} bytes in use, memory ${this.Module.HEAPU8.length} bytes, 2 GiB at most); dispose heap tensors or make the request smaller`);
    }
    return p;
  }

  /**
   * The C++ side allocates a little on its error path (the status message) and for string
   * arguments, with an allocator that aborts the whole module when malloc fails. Before such a
   * call, make sure that much is free: a heap filled to the last byte by heap tensors is then a
   * RangeError, not an abort.
   */
  ensureHeadroom(fn) {
    // Below its 2 GiB maximum the memory grows for whatever the module allocates; probing
    // there would only grow it for nothing.
    if (this.Module.HEAPU8.length + HEADROOM <= HEAP_LIMIT) return;
    const p = this.Module.allocate(HEADROOM);
    if (!p) {
      throw new RangeError(`${fn}: the wasm heap is full (${this.Module.heapUsed()} bytes in use, memory ${this.Module.HEAPU8.length} bytes, 2 GiB at most), with no room left for the call itself; dispose heap tensors`);
    }
    this.Module.release(p);
  }

  /**
   * A typed array read at the start of the call must be unchanged when it is copied: a getter
   * of a later argument may have detached or resized its buffer meanwhile.
   */
  checkUnchanged(fn, what, data, bytes) {
    if (data.byteLength === bytes) return;
    if (isDetached(data.buffer)) throw detachedError(fn, what);
    throw new TypeError(`${fn}: ${what}: expected ${bytes} bytes as when the call began, got ${data.byteLength} (its resizable ArrayBuffer was resized during the call)`);
  }

  // A heap tensor resolved at the start of the call must still be alive (a getter of a later
  // argument may have disposed it).
  #checkAlive(fn, what, t) {
    if (t.heap && HeapTensor.addressIn(t.heap, this, fn, what) !== t.ptr) {
      throw disposedError(fn, what, t.heap, ' during the call');
    }
  }

  /**
   * Runs `body(addresses, y)` with every input (a [name, record] pair, records as
   * core/tensor_args.mjs reads them) given a heap address, copying inputs in first, and `y` the
   * output's address (`out.ptr`, a heap tensor of ours, or `outBytes` allocated here); frees
   * what it allocated whatever happens. Up to ONE_BLOCK bytes in all are one allocation (fewer
   * crossings into the wasm for small calls); more, one per part, so that the parts can fill
   * separate holes of a fragmented heap.
   */
  withHeap(fn, inputs, outBytes, out, body) {
    const parts = inputs.filter(([, t]) => !t.ptr).map(([name, t]) => [name, t.bytes]);
    const ownOutput = !(out && out.ptr);
    if (ownOutput) parts.push(['the output', outBytes]);
    this.checkBudget(fn, parts);
    if (this.checkOnly) return undefined;
    const owned = [];
    try {
      const places = this.#place(fn, parts, owned);
      let next = 0;
      const addresses = inputs.map(([, t]) => t.ptr || places[next++]);
      const y = ownOutput ? places[next] : out.ptr;
      this.copyIn(fn, inputs, addresses, out);
      return body(addresses, y);
    } finally {
      for (const p of owned) this.Module.release(p);
    }
  }

  /**
   * The last steps before a binding call, once every allocation is made (a growing memory
   * detaches earlier views): the heap tensors among `inputs` (and `out`) still alive, the arrays
   * unchanged and copied to their `addresses`, room for the call's own allocations.
   */
  copyIn(fn, inputs, addresses, out) {
    for (const [name, t] of inputs) this.#checkAlive(fn, name, t);
    if (out && out.ptr) this.#checkAlive(fn, 'options.out', out);
    const heap = this.Module.HEAPU8;
    inputs.forEach(([name, t], i) => {
      if (t.ptr) return;
      this.checkUnchanged(fn, `${name}.data`, t.data, t.bytes);
      heap.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.bytes), addresses[i]);
    });
    this.ensureHeadroom(fn);
  }

  // Heap addresses for `parts` ([what, bytes] pairs), the allocations pushed to `owned`: each
  // part 16-byte aligned in one block when they are small together, else one allocation each.
  #place(fn, parts, owned) {
    const sizes = parts.map(([, bytes]) => Math.ceil(bytes / 16) * 16);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (parts.length > 1 && total <= ONE_BLOCK) {
      const block = this.allocate(fn, listed(parts.map(([what]) => what)), total);
      owned.push(block);
      let at = block;
      return sizes.map((size) => (at += size) - size);
    }
    return parts.map(([what, bytes]) => {
      const p = this.allocate(fn, what, bytes);
      owned.push(p);
      return p;
    });
  }

  /**
   * What a tensor call returns once its output is at heap address `y` ([dtype, dims, bytes]):
   * `out` (readOut's) itself for a heap tensor, else the bytes copied into its target, or into
   * a new {data, shape, dtype}; uint8 and float16 results keep the class of `first`'s data (the
   * first input: a Uint8ClampedArray of ImageData gives one).
   */
  result(fn, out, y, [dtype, dims, bytes], first) {
    if (out.ptr) return out.result;
    if (out.target) {
      this.copyOut(fn, 'options.out', y, bytes, out.target);
      return out.result;
    }
    const like = first.data;
    return { data: this.copyOut(fn, null, y, bytes, null, dtype, like && like.constructor), shape: dims.slice(), dtype };
  }

  /**
   * The `bytes` at heap address `y` out of the heap: into `target` (checked as `what`, it was
   * read before the call) or into a new typed array of `dtype`, of `like`'s class when that is
   * one of the dtype's (uint8 results of ImageData pixels stay Uint8ClampedArray).
   */
  copyOut(fn, what, y, bytes, target, dtype, like) {
    const src = new Uint8Array(this.Module.HEAPU8.buffer, y, bytes);
    if (target) {
      // A view of this very heap, taken before the call grew it, is detached by now.
      this.checkUnchanged(fn, what, target, bytes);
      new Uint8Array(target.buffer, target.byteOffset, bytes).set(src);
      return target;
    }
    const buffer = this.newBuffer(bytes);
    new Uint8Array(buffer).set(src);
    return new (arrayClass(dtype, like))(buffer);
  }
}
