// The zero-copy tier: HeapTensor, a tensor whose elements live in the wasm heap of one loaded module, with views refreshed after memory growth and explicit dispose().
import { arrayClass, elementSize } from './dtypes.mjs';
import { describe, shapeString } from './messages.mjs';

const CONSTRUCT_KEY = Symbol('gridsample.HeapTensor');
const heapRegistry = typeof FinalizationRegistry === 'function'
  // A tensor that was never disposed gives its memory back when it is collected.
  ? new FinalizationRegistry(({ Module, ptr }) => Module.release(ptr))
  : null;

/** A tensor whose elements live in the wasm heap of one loaded module (the zero-copy tier). */
export class HeapTensor {
  #heap;
  #ptr;
  #dtype;
  #shape;
  #size;
  #view = null;
  #viewBuffer = null;

  constructor(key, heap, ptr, dtype, dims, size) {
    if (key !== CONSTRUCT_KEY) {
      throw new TypeError('HeapTensor: create heap tensors with gs.tensor() or gs.tensorFrom()');
    }
    this.#heap = heap;
    this.#ptr = ptr;
    this.#dtype = dtype;
    this.#shape = Object.freeze(dims.slice());
    this.#size = size;
    if (heapRegistry) heapRegistry.register(this, { Module: heap.Module, ptr }, this);
  }

  /** Element type name. */
  get dtype() { return HeapTensor.#own(this, 'dtype').#dtype; }
  /** Dimensions (frozen). */
  get shape() { return HeapTensor.#own(this, 'shape').#shape; }
  /** Same as `shape`, the name onnxruntime-web uses. */
  get dims() { return HeapTensor.#own(this, 'dims').#shape; }
  /** Number of elements. */
  get size() { return HeapTensor.#own(this, 'size').#size; }
  /** Bytes of element storage. */
  get byteLength() { return this.size * elementSize(this.#dtype); }
  /** True after dispose(). */
  get disposed() { return HeapTensor.#own(this, 'disposed').#ptr === 0; }

  /** A typed-array view of the elements; re-created after the wasm memory grew, so read it again after calls. */
  get data() {
    HeapTensor.#own(this, 'data').#check('data');
    const buffer = this.#heap.Module.HEAPU8.buffer;
    if (buffer !== this.#viewBuffer) {
      this.#view = new (arrayClass(this.#dtype))(buffer, this.#ptr, this.#size);
      this.#viewBuffer = buffer;
    }
    return this.#view;
  }

  /** Frees the heap memory. Idempotent; the tensor is unusable afterwards. */
  dispose() {
    if (HeapTensor.#own(this, 'dispose').#ptr === 0) return;
    if (heapRegistry) heapRegistry.unregister(this);
    this.#heap.Module.release(this.#ptr);
    this.#ptr = 0;
    this.#view = null;
    this.#viewBuffer = null;
  }

  #check(what) {
    if (this.#ptr === 0) {
      throw new TypeError(`HeapTensor.${what}: this ${this.#dtype} tensor of shape ${shapeString(this.#shape)} was disposed`);
    }
  }

  // `t` when it is a real heap tensor; a Proxy of one or an object that only inherits from
  // HeapTensor.prototype has none of its private state.
  static #own(t, what) {
    if (t === null || (typeof t !== 'object' && typeof t !== 'function') || !(#ptr in t)) {
      throw new TypeError(`HeapTensor.${what}: expected a heap tensor made by gs.tensor() or gs.tensorFrom(), got ${t instanceof HeapTensor ? 'an object that only inherits from HeapTensor (a Proxy of a heap tensor or Object.create(HeapTensor.prototype))' : describe(t)}`);
    }
    return t;
  }

  // Heap address when `t` is a live tensor of `heap`'s module; 0 when disposed; -2 when it is
  // a live tensor of another module; -1 when it is not a heap tensor. Throws for look-alikes.
  static addressIn(t, heap, fn, what) {
    if (!(t instanceof HeapTensor)) return -1;
    if (!(#ptr in t)) {
      throw new TypeError(`${fn}: ${what}: expected a heap tensor made by gs.tensor() or gs.tensorFrom(), got an object that only inherits from HeapTensor (a Proxy of a heap tensor or Object.create(HeapTensor.prototype)); pass the tensor itself`);
    }
    if (t.#ptr === 0) return 0;
    return t.#heap === heap ? t.#ptr : -2;
  }
}
if (typeof Symbol.dispose === 'symbol') {
  HeapTensor.prototype[Symbol.dispose] = function dispose() { this.dispose(); };
}

/** A HeapTensor over `size` elements of `dtype` at heap address `ptr` of `heap` (a WasmHeap), which it now owns. */
export function adoptHeapTensor(heap, ptr, dtype, dims, size) {
  return new HeapTensor(CONSTRUCT_KEY, heap, ptr, dtype, dims, size);
}

/** The error for a disposed heap tensor given as argument `what`. */
export function disposedError(fn, what, t, when = '') {
  return new TypeError(`${fn}: ${what}: this ${t.dtype} tensor of shape ${shapeString(t.shape)} was disposed${when}`);
}
