// Reading tensor arguments ({data, shape} objects, onnxruntime-web tensors, heap tensors) and options.out into records the heap calls use: dtype, dims, size, bytes and a heap address or an array to copy.
import { checkArrayClass, dtypeOfArray, elementSize, readDtypeName } from './dtypes.mjs';
import { HeapTensor, disposedError } from './heap_tensor.mjs';
import { describe, detachedError, isDetached, isView, posesAsView, sameShape, shapeString } from './messages.mjs';
import { countElements, readDims } from './plain_args.mjs';

/**
 * A tensor argument as {dtype, dims, size, bytes} plus either `ptr` and `heap` (a heap tensor
 * of `heap`'s module) or `data` (a typed array to copy in).
 */
export function readTensor(heap, fn, what, t) {
  const address = HeapTensor.addressIn(t, heap, fn, what);
  if (address === 0) throw disposedError(fn, what, t);
  if (address > 0) {
    return { dtype: t.dtype, dims: t.shape, size: t.size, bytes: t.byteLength, ptr: address, heap: t };
  }
  // A heap tensor of another loaded module is read like any tensor: by copy.
  if (t === null || typeof t !== 'object' || isView(t) || Array.isArray(t) || posesAsView(t)) {
    throw new TypeError(`${fn}: ${what}: expected a tensor {data, shape} or {data, dims}, got ${describe(t)}`);
  }
  // onnxruntime-web tensors can live on a GPU; their `data` getter would throw.
  if (typeof t.location === 'string' && t.location !== 'cpu' && t.location !== 'cpu-pinned') {
    throw new TypeError(`${fn}: ${what}: expected a CPU tensor, got one on '${t.location}'; download it first (await tensor.getData())`);
  }
  const data = t.data;
  if (!isView(data)) {
    throw new TypeError(`${fn}: ${what}.data: expected a typed array, got ${describe(data)}`);
  }
  if (t.shape !== undefined && t.dims !== undefined && t.shape !== t.dims) {
    const a = readDims(fn, `${what}.shape`, t.shape);
    const b = readDims(fn, `${what}.dims`, t.dims);
    if (!sameShape(a, b)) {
      throw new RangeError(`${fn}: ${what}: shape ${shapeString(a)} and dims ${shapeString(b)} disagree`);
    }
  }
  const shape = t.shape !== undefined ? t.shape : t.dims;
  if (shape === undefined) {
    throw new TypeError(`${fn}: ${what}: expected a shape (or dims) array, got undefined`);
  }
  const dims = readDims(fn, `${what}.${t.shape !== undefined ? 'shape' : 'dims'}`, shape);
  // Our own results say `dtype`; onnxruntime-web tensors say `type`.
  const declared = t.dtype !== undefined ? t.dtype : t.type;
  let dtype;
  if (declared !== undefined) {
    dtype = readDtypeName(fn, `${what}.${t.dtype !== undefined ? 'dtype' : 'type'}`, declared);
    checkArrayClass(fn, `${what}.data`, dtype, data);
  } else {
    dtype = dtypeOfArray(fn, `${what}.data`, data);
  }
  if (isDetached(data.buffer)) throw detachedError(fn, `${what}.data`);
  const size = countElements(fn, what, dims, dtype);
  if (data.length !== size) {
    throw new RangeError(`${fn}: ${what}: data has ${data.length} elements but shape ${shapeString(dims)} needs ${size}`);
  }
  return { dtype, dims, size, bytes: size * elementSize(dtype), data };
}

/**
 * Where the result goes: {ptr, heap} for a heap tensor of ours, else {target} (a typed array
 * to copy into); `result` is what the call returns. `inputs` are the call's [name, record]
 * pairs, which a heap output must not overlap.
 */
export function readOut(heap, fn, out, dtype, dims, size, inputs) {
  const what = 'options.out';
  const address = HeapTensor.addressIn(out, heap, fn, what);
  if (address === 0) throw disposedError(fn, what, out);
  if (address > 0 || (out !== null && typeof out === 'object' && !isView(out) && !posesAsView(out))) {
    const t = readTensor(heap, fn, what, out);
    if (t.dtype !== dtype) {
      throw new TypeError(`${fn}: ${what}: expected dtype ${dtype} (the input's), got ${t.dtype}`);
    }
    if (!sameShape(t.dims, dims)) {
      throw new RangeError(`${fn}: ${what}: expected shape ${shapeString(dims)}, got ${shapeString(t.dims)}`);
    }
    if (t.ptr) {
      for (const [name, input] of inputs) {
        if (overlaps(t, input)) {
          throw new RangeError(`${fn}: ${what}: shares memory with ${name}; give the output its own tensor`);
        }
      }
      return { ptr: t.ptr, heap: t.heap, result: out };
    }
    return { target: t.data, result: out };
  }
  if (!isView(out)) {
    throw new TypeError(`${fn}: ${what}: expected a typed array or a tensor {data, shape}, got ${describe(out)}`);
  }
  checkArrayClass(fn, what, dtype, out);
  if (isDetached(out.buffer)) throw detachedError(fn, what);
  if (out.length !== size) {
    throw new RangeError(`${fn}: ${what}: expected ${size} elements for shape ${shapeString(dims)}, got ${out.length}`);
  }
  return { target: out, result: { data: out, shape: dims.slice(), dtype } };
}

/** Whether two records in the heap (`ptr`, `bytes`) share memory. */
export function overlaps(a, b) {
  return Boolean(a.ptr && b.ptr && a.bytes && b.bytes && a.ptr < b.ptr + b.bytes && b.ptr < a.ptr + a.bytes);
}
