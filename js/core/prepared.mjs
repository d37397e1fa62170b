// Prepared calls (gs.prepareGridSample and its kin): a call validated once by the library for given shapes, dtypes and options (a C++ Sampler), then run on new data with one crossing into wasm and no allocation.
import { elementSize, readDtypeName } from './dtypes.mjs';
import { HeapTensor } from './heap_tensor.mjs';
import { readSampling, shapeQueryError } from './library_rules.mjs';
import { describe, sameShape, shapeString } from './messages.mjs';
import { countElements, MAX_DIMS, readAlign, readDims, readOptions, readSize } from './plain_args.mjs';
import { readOut, readTensor } from './tensor_args.mjs';
import { CALL_BLOCK, libraryError } from './wasm_heap.mjs';

// PreparedOp codes, and what each takes.
const OPS = {
  gridSample: { code: 0, inputs: ['x', 'grid'] },
  gridSampleChannelsLast: { code: 1, inputs: ['x', 'grid'] },
  warpFlow: { code: 2, inputs: ['x', 'flow'] },
  affineGrid: { code: 3, inputs: ['theta'] },
  // The image calls (images/warps.mjs), run by runImageCall.
  warpAffine: { code: 4 },
  warpPerspective: { code: 5 },
  remap: { code: 6 },
  warpFlowImage: { code: 7 },
};

/**
 * Whether module `Module` links `feature`: an operator of OPS where the module can prepare it,
 * anything else (the deformable attention, the fixed-map plans, the matrix helpers: calls outside
 * the prepared path) where the module has a binding of that name.
 */
export function offersFeature(Module, feature) {
  if (!Object.hasOwn(OPS, feature)) return typeof Module[feature] === 'function';
  return typeof Module.offersOp === 'function' && Module.offersOp(OPS[feature].code);
}
const SAMPLING_OPTIONS = ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners'];

// A prepared object that was never disposed gives its plan and buffers back when collected.
const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((state) => releaseState(state))
  : null;

function releaseState(state) {
  for (const p of state.buffers) if (p) state.Module.release(p);
  state.buffers.fill(0);
  state.Module.releasePrepared(state.handle);
}

/**
 * What a prepared object (a PreparedCall, images/fixed_maps.mjs's PreparedRemap) keeps in its
 * module: the library's plan (`handle`, 0 once released) and `slots` heap buffers its runs copy
 * arrays through, each allocated at its first use; released by release() or, when the owner is
 * collected undisposed, by the registry.
 */
export class KeptPlan {
  #heap;
  #state;

  constructor(heap, owner, handle, slots) {
    this.#heap = heap;
    this.#state = { Module: heap.Module, handle, buffers: new Array(slots).fill(0) };
    if (registry) registry.register(owner, this.#state, owner);
  }

  get handle() { return this.#state.handle; }

  /**
   * The plan's handle, or `fn`'s TypeError saying `what` was disposed (`during` the call: by a
   * getter of its arguments, once they are read; the plan must not be called then).
   */
  live(fn, what, during = false) {
    if (this.#state.handle === 0) throw new TypeError(`${fn}: ${what} was disposed${during ? ' during the call' : ''}`);
    return this.#state.handle;
  }

  /** Frees the plan and the buffers (idempotent); `owner` as given to the constructor. */
  release(owner) {
    if (this.#state.handle === 0) return;
    if (registry) registry.unregister(owner);
    releaseState(this.#state);
    this.#state.handle = 0;
  }

  /** The heap buffer `slot` of `bytes` (named `what` in `fn`'s errors), allocated at its first use. */
  buffer(fn, slot, what, bytes) {
    const { buffers } = this.#state;
    if (!buffers[slot]) {
      this.#heap.checkBudget(fn, [[what, bytes]]);
      buffers[slot] = this.#heap.allocate(fn, what, Math.max(bytes, 1));
    }
    return buffers[slot];
  }
}

/**
 * What a tensor argument of a prepare call describes: {dtype, dims}. A tensor with data (any the
 * calls take) or a description {dtype, shape} / {dtype, dims} without data.
 */
function readSpec(heap, fn, what, t) {
  if (t instanceof HeapTensor || (t !== null && typeof t === 'object' && t.data !== undefined)) {
    const { dtype, dims } = readTensor(heap, fn, what, t);
    return { dtype, dims };
  }
  if (t === null || typeof t !== 'object') {
    throw new TypeError(`${fn}: ${what}: expected a tensor or a description {dtype, shape}, got ${describe(t)}`);
  }
  const dims = readDims(fn, `${what}.${t.shape !== undefined ? 'shape' : 'dims'}`, t.shape ?? t.dims);
  return { dtype: readDtypeName(fn, `${what}.dtype`, t.dtype), dims };
}

/**
 * A call as the block holds it: `op`, its inputs' {dtype, dims}, `sampling` codes ({mode,
 * padding, align}) and AffineGrid's `size`, copied (the caller's arrays may change).
 */
function callOf(op, specs, sampling, size) {
  return {
    op, mode: sampling.mode, padding: sampling.padding, align: sampling.align ? 1 : 0,
    size: size ? size.slice() : null, specs: specs.map(({ dtype, dims }) => ({ dtype, dims: dims.slice() })), image: null,
  };
}

// Whether `call` (callOf's) is the call of these arguments.
function isCall(call, op, specs, sampling, size) {
  return call.op === op && call.mode === sampling.mode && call.padding === sampling.padding &&
    call.align === (sampling.align ? 1 : 0) && (size ? call.size !== null && sameShape(call.size, size) : call.size === null) &&
    call.specs.length === specs.length && specs.every((t, i) => t.dtype === call.specs[i].dtype && sameShape(t.dims, call.specs[i].dims));
}

// Writes `call` (callOf's) into the call block at heap address `block` (CALL_BLOCK's layout,
// 8-byte aligned): every field the library reads for the call's operator (a second input's rank
// 0 where it has one; no fill without an image). Through the heap's int32 and float64 views, an
// int64 as two halves (|v| < 2^53): a DataView or a BigInt per value costs microseconds a call.
function writeBlock(heap, block, call) {
  const { HEAP32: i32, HEAPF64: f64 } = heap.Module;
  const at = (offset) => (block + offset) >> 2;
  const int64 = (offset, v) => {
    i32[at(offset)] = v | 0;
    i32[at(offset) + 1] = Math.floor(v / 4294967296);
  };
  i32[at(CALL_BLOCK.op)] = OPS[call.op].code;
  i32[at(CALL_BLOCK.mode)] = call.mode;
  i32[at(CALL_BLOCK.padding)] = call.padding;
  i32[at(CALL_BLOCK.align)] = call.align;
  i32[at(CALL_BLOCK.dtype) + 1] = 0;
  i32[at(CALL_BLOCK.rank) + 1] = 0;
  for (let i = 0; i < call.specs.length; ++i) {
    const { dtype, dims } = call.specs[i];
    i32[at(CALL_BLOCK.dtype) + i] = heap.dtypeCodes[dtype];
    i32[at(CALL_BLOCK.rank) + i] = dims.length;
    for (let k = 0; k < dims.length; ++k) int64(CALL_BLOCK.shape + 8 * (MAX_DIMS * i + k), dims[k]);
  }
  const size = call.size ?? [];
  i32[at(CALL_BLOCK.sizeLen)] = size.length;
  for (let k = 0; k < Math.min(size.length, 5); ++k) int64(CALL_BLOCK.size + 8 * k, size[k]);
  const { space = 0, fill = [0], rows = null } = call.image ?? {};
  i32[at(CALL_BLOCK.space)] = space;
  i32[at(CALL_BLOCK.fillCount)] = fill[0];
  for (let k = 1; k < fill.length; ++k) f64[((block + CALL_BLOCK.fill) >> 3) + k - 1] = fill[k];
  int64(CALL_BLOCK.rowsHeight, rows ? rows[0] : -1);
  int64(CALL_BLOCK.rowsBegin, rows ? rows[1] : 0);
}

/**
 * An image call (images/warps.mjs) in one crossing: `op` (warpAffine, warpPerspective, remap,
 * warpFlowImage) on inputs of `specs` ({dtype, dims}: X, then the matrix or map; two planes share
 * one spec) with `sampling` codes into Y of `yDims`, `image` holding the matrix space code, the
 * fill ([count, f0, f1, f2, f3]) and a band of rows ([height, begin] or null); `pointers` the
 * inputs' heap addresses (X, the matrix or map, the second plane or 0), `yp` Y's. The library's
 * error code, 0 when it ran.
 */
export function runImageCall(heap, op, specs, sampling, yDims, image, [x, m, more], yp) {
  return heap.Module._gridsample_call(writeImageBlock(heap, op, specs, sampling, yDims, image), x, m, more, yp);
}

/** The call block of an image call, as runImageCall describes one; returns its heap address. */
export function writeImageBlock(heap, op, specs, sampling, yDims, image) {
  writeBlock(heap, heap.block, {
    op, mode: sampling.mode, padding: sampling.padding, align: sampling.align ? 1 : 0, size: yDims, specs, image,
  });
  return heap.block;
}

// A new prepared plan in the module for the call writeBlock's arguments describe: {handle,
// outDims}, or the library's error (a dtype it refuses is a TypeError, anything else a
// RangeError).
function prepareSampler(heap, fn, op, specs, sampling, size) {
  const { Module, block } = heap;
  heap.ensureHeadroom(fn);
  writeBlock(heap, block, callOf(op, specs, sampling, size));
  const handle = Module.prepare(block);
  if (!handle) throw shapeQueryError(heap, fn);
  const view = new DataView(Module.HEAPU8.buffer, block, CALL_BLOCK.bytes);
  const outDims = Array.from({ length: view.getInt32(CALL_BLOCK.outRank, true) }, (_, k) => Number(view.getBigInt64(CALL_BLOCK.outShape + 8 * k, true)));
  return { handle, outDims };
}

// Distinct calls whose output shapes a module's unprepared calls remember (the least recently
// used is forgotten beyond this).
const KEPT_SHAPES = 64;

/**
 * The unprepared calls of one module (core/api.mjs), run through call blocks: call(op, records,
 * sampling, size, check) returns {outDims, block}, the call's output dimensions and the heap
 * address of a block that holds it, for Module._gridsample_call(block, ...) to validate and run
 * in one crossing. The last calls (as many as the module has blocks: a spatial transformer's
 * AffineGrid and GridSample, say) keep their blocks and are recognised by their arguments;
 * another is written into the least recently used block, its output dimensions remembered by
 * key (the last KEPT_SHAPES) or computed by check() (the call's own argument checks, whose errors
 * and order the calls keep, returning the output dimensions the library's shape query gave).
 * Nothing is allocated in the wasm heap.
 */
export function blockCalls(heap) {
  const shapes = new Map();
  const recent = heap.blocks.map((block) => ({ block, call: null, outDims: null }));
  return (op, records, sampling, size, check) => {
    for (let i = 0; i < recent.length; ++i) {
      const entry = recent[i];
      if (entry.call && isCall(entry.call, op, records, sampling, size)) {
        if (i > 0) recent.unshift(...recent.splice(i, 1));
        return entry;
      }
    }
    let key = `${op} ${sampling.mode} ${sampling.padding} ${sampling.align ? 1 : 0} ${size ?? ''}`;
    for (const { dtype, dims } of records) key += `|${dtype} ${dims}`;
    let outDims = shapes.get(key);
    if (outDims) {
      shapes.delete(key);
    } else {
      outDims = check();
      if (shapes.size >= KEPT_SHAPES) shapes.delete(shapes.keys().next().value);
    }
    shapes.set(key, outDims);
    const entry = recent.pop();
    entry.call = callOf(op, records, sampling, size);
    entry.outDims = outDims;
    writeBlock(heap, entry.block, entry.call);
    recent.unshift(entry);
    return entry;
  };
}

/**
 * The heap address of `entry`'s block (blockCalls' result) holding `call` (the entry's call when
 * it was returned) again: calls made since, from a getter of this call's arguments, may have
 * written theirs into it (the library would then run this call's buffers on their shapes).
 */
export function holdBlock(heap, entry, call, outDims) {
  if (entry.call !== call) {
    writeBlock(heap, entry.block, call);
    [entry.call, entry.outDims] = [call, outDims];
  }
  return entry.block;
}

/**
 * The prepare functions of one module's API (core/api.mjs): prepareGridSample(x, grid, options)
 * and prepareAffineGrid(theta, size, options), and where the module has them (`has`:
 * {channelsLast, warpFlow}) prepareGridSampleChannelsLast(x, grid, options) and
 * prepareWarpFlow(x, flow, options); each returns a PreparedCall.
 */
export function preparedCalls(heap, has) {
  const prepare = (op, fn, specs, sampling, size) => {
    const { handle, outDims } = prepareSampler(heap, fn, op, specs, sampling, size);
    return new PreparedCall(heap, op, handle, specs, outDims);
  };
  const sampler = (op) => (x, coordinates, options) => {
    const fn = `prepare${op[0].toUpperCase()}${op.slice(1)}`;
    const opts = readOptions(fn, options, SAMPLING_OPTIONS);
    const [a, b] = OPS[op].inputs;
    const specs = [readSpec(heap, fn, a, x), readSpec(heap, fn, b, coordinates)];
    return prepare(op, fn, specs, readSampling(heap, fn, opts));
  };
  return {
    prepareGridSample: sampler('gridSample'),
    ...has.channelsLast && { prepareGridSampleChannelsLast: sampler('gridSampleChannelsLast') },
    ...has.warpFlow && { prepareWarpFlow: sampler('warpFlow') },
    prepareAffineGrid(theta, size, options) {
      const fn = 'prepareAffineGrid';
      const opts = readOptions(fn, options, ['alignCorners', 'align_corners']);
      const spec = readSpec(heap, fn, 'theta', theta);
      return prepare('affineGrid', fn, [spec], { mode: 0, padding: 0, align: readAlign(fn, opts) }, readSize(fn, size));
    },
  };
}

/**
 * One prepared call: `run(...inputs, options?)` with tensors of the prepared shapes and dtypes
 * (options: `out` only) returns what the unprepared call returns. Plain arrays are copied through
 * heap buffers the call keeps (allocated at its first run that needs them; `dispose()` frees
 * them and the prepared state); heap tensors are read and written in place.
 */
export class PreparedCall {
  #heap;
  #op;
  #fn;
  #what; // "this prepared <op> call", for the disposed errors
  #specs;
  #kept;
  #outBytes;

  constructor(heap, op, handle, specs, outDims) {
    this.#heap = heap;
    this.#op = op;
    this.#fn = `${op}.run`;
    this.#what = `this prepared ${op} call`;
    this.#specs = specs;
    this.#kept = new KeptPlan(heap, this, handle, 3);
    /** The output's dtype (the first input's) and dimensions (frozen). */
    this.dtype = specs[0].dtype;
    this.outputShape = Object.freeze(outDims);
    this.#outBytes = countElements(this.#fn, 'the output', outDims, this.dtype) * elementSize(this.dtype);
    Object.freeze(this);
  }

  /** True after dispose(). */
  get disposed() { return this.#kept.handle === 0; }

  /** Frees the prepared state and the buffers it keeps. Idempotent; run() throws afterwards. */
  dispose() { this.#kept.release(this); }

  run(...args) {
    const fn = this.#fn;
    const heap = this.#heap;
    const what = this.#what;
    this.#kept.live(fn, what);
    const names = OPS[this.#op].inputs;
    const opts = readOptions(fn, args[names.length], ['out']);
    const inputs = names.map((name, i) => [name, this.#read(name, args[i], this.#specs[i])]);
    const out = opts.out === undefined ? {} : readOut(heap, fn, opts.out, this.dtype, this.outputShape, this.#outBytes / elementSize(this.dtype), inputs);
    const handle = this.#kept.live(fn, what, true); // no code of the caller's runs after this
    const addresses = inputs.map(([name, t], i) => t.ptr || this.#buffer(i, name, t.bytes));
    const y = out.ptr || this.#buffer(2, 'the output', this.#outBytes);
    heap.copyIn(fn, inputs, addresses, out);
    if (heap.Module._gridsample_run(handle, addresses[0], addresses[1] ?? 0, 0, y) !== 0) {
      throw libraryError(fn, heap.Module.takeLastError());
    }
    return heap.result(fn, out, y, [this.dtype, this.outputShape, this.#outBytes], inputs[0][1]);
  }

  // Input `name` read as a tensor and held to the prepared dtype and shape.
  #read(name, t, spec) {
    const fn = this.#fn;
    const record = readTensor(this.#heap, fn, name, t);
    if (record.dtype !== spec.dtype) {
      throw new TypeError(`${fn}: ${name}: expected dtype ${spec.dtype} (as prepared), got ${record.dtype}`);
    }
    if (!sameShape(record.dims, spec.dims)) {
      throw new RangeError(`${fn}: ${name}: expected shape ${shapeString(spec.dims)} (as prepared), got ${shapeString(record.dims)}`);
    }
    return record;
  }

  // The kept heap buffer `slot` (0, 1: inputs; 2: the output), allocated at its first use.
  #buffer(slot, what, bytes) { return this.#kept.buffer(this.#fn, slot, what, bytes); }
}
