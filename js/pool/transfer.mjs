// What crosses between the pool's calling thread and its workers: arguments read now into what a worker can receive (copies, transferred), the shared input in shared memory where there is some, and errors rebuilt as the instance's.
import { isView } from '../core/messages.mjs';

// Whether workers can share memory with this thread: Node, and cross-origin isolated pages
// (elsewhere browsers have no SharedArrayBuffer).
export const SHARED_MEMORY = typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated !== false;

// The fields of an image or tensor argument that the instance reads (images/warps.mjs, readImage;
// core/tensor_args.mjs, readTensor).
const ARGUMENT_FIELDS = ['data', 'width', 'height', 'channels', 'shape', 'dims', 'dtype', 'type'];

// Argument `arg` (not the options) as a worker gets it, read now: a typed array copied (the copy
// transferred: cheaper than the structured clone postMessage makes otherwise), an Array
// copied, an image or tensor as a plain object of the fields the instance reads (its class's
// getters, e.g. onnxruntime's Tensor.data, read here; other properties, functions among them,
// left out: a worker could not get them).
export function snapshot(arg, transfer) {
  if (isView(arg)) {
    const copy = arg.slice();
    if (copy.byteLength) transfer.push(copy.buffer);
    return copy;
  }
  if (Array.isArray(arg)) return Array.from(arg);
  if (arg === null || typeof arg !== 'object') return arg;
  const plain = {};
  for (const key of ARGUMENT_FIELDS) {
    const v = arg[key];
    if (v !== undefined) plain[key] = key === 'data' ? snapshot(v, transfer) : v;
  }
  return plain;
}

// The Error a worker's error message stands for: the same class and message as the
// single-instance call's.
export function errorFrom(e) {
  const Class = { TypeError, RangeError }[e.name] ?? Error;
  const error = new Class(e.message);
  if (!(e.name in { TypeError: 1, RangeError: 1, Error: 1 })) error.name = e.name;
  return error;
}

// A copy of a call's shared input, made with the call (it may wait for a worker; the caller may
// change its arrays meanwhile): in shared memory, which every worker can read, where there is
// some (Node; cross-origin isolated pages).
export function inputCopy(from) {
  if (!SHARED_MEMORY || !from.byteLength) return from.slice();
  const copy = new from.constructor(new SharedArrayBuffer(from.byteLength));
  const bytes = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  bytes(copy).set(bytes(from));
  return copy;
}
