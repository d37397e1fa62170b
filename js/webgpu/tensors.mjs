// Tensor arguments of gridsample/webgpu: GPU tensors ({buffer, dims, dtype}, onnxruntime tensors in 'gpu-buffer'), CPU tensors to upload, and the GPU tensors it returns.
import { elementSize, readDtypeName } from '../core/dtypes.mjs';
import { describe, sameShape, shapeString } from '../core/messages.mjs';
import { countElements, readDims } from '../core/plain_args.mjs';
import { readTensor } from '../core/tensor_args.mjs';

const tag = (v) => Object.prototype.toString.call(v);

// GPUBufferUsage's flags, by value (Node has no GPUBufferUsage global until WebGPU is set up).
export const USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 };

/** Bytes a binding of `bytes` takes: storage bindings come in whole 4-byte words. */
export function bindingBytes(bytes) {
  return Math.max(4, Math.ceil(bytes / 4) * 4);
}

/**
 * Bytes a buffer of `bytes` is allocated with: whole 16-byte blocks, as onnxruntime-web
 * allocates its own. Its WebGPU kernels read and write a buffer handed to them
 * (Tensor.fromGpuBuffer) as vec4s over that rounded size: a 20-byte buffer's fifth value came
 * back as the first's, and one under 16 bytes failed its validation.
 */
export function allocationBytes(bytes) {
  return Math.max(16, Math.ceil(bytes / 16) * 16);
}

/** Whether `b` is a GPUBuffer (by its tag, which a Proxy of one shows too, or the members used). */
export function isGpuBuffer(b) {
  return b !== null && typeof b === 'object' && (tag(b) === '[object GPUBuffer]' || (typeof b.mapAsync === 'function' &&
    typeof b.size === 'number' && typeof b.usage === 'number'));
}

/**
 * Refuses a GPUBuffer that `what` (an argument) cannot bind: an object that only looks like one
 * (no [object GPUBuffer] tag: Dawn would throw mid-call), a Proxy or other wrapper of one (the
 * tag, but its own getters refuse it: Dawn in Node crashed on one bound), a mapped one (the GPU
 * refuses it at submit), one without STORAGE usage.
 */
export function checkBoundBuffer(fn, what, buffer) {
  if (tag(buffer) !== '[object GPUBuffer]') {
    throw new TypeError(`${fn}: ${what}: expected a GPUBuffer, got an object that only looks like one (${tag(buffer)})`);
  }
  try {
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(buffer), 'size')?.get?.call(buffer);
  } catch {
    throw new TypeError(`${fn}: ${what}: expected a GPUBuffer, got a Proxy or another wrapper of one`);
  }
  if (buffer.mapState !== undefined && buffer.mapState !== 'unmapped') {
    throw new TypeError(`${fn}: ${what}: its GPUBuffer is ${buffer.mapState === 'pending' ? 'being mapped' : 'mapped'}; unmap() it before the call`);
  }
  if (!(buffer.usage & USAGE.STORAGE)) {
    throw new TypeError(`${fn}: ${what}: its GPUBuffer lacks STORAGE usage (usage ${buffer.usage}); create it with GPUBufferUsage.STORAGE`);
  }
}

/** Refuses a GPU tensor or image of ours that was disposed (before the call, or during it). */
export function checkNotDisposed(fn, what, t) {
  if (t?.disposed === true) throw new TypeError(`${fn}: ${what}: this GPU ${'width' in t ? 'image' : 'tensor'} was disposed`);
}

/** Refuses an options.encoder that is not a GPUCommandEncoder (by the members used). */
export function checkEncoder(fn, encoder) {
  if (encoder === undefined) return;
  if (encoder === null || typeof encoder !== 'object' || typeof encoder.beginComputePass !== 'function' || typeof encoder.finish !== 'function') {
    throw new TypeError(`${fn}: options.encoder: expected a GPUCommandEncoder, got ${describe(encoder)}`);
  }
}

// GPU tensors of ours (gpuTensor: their buffer, dims and dtype fixed) -> readGpuOrCpuTensor's
// record of them, made at their first read.
const records = new WeakMap();
const OURS = Symbol('gridsample GPU tensor');

/**
 * A tensor argument as {buffer, dtype, dims, size, bytes} on the GPU, or {data, dtype, dims,
 * size, bytes} on the CPU (to upload, or for the wasm fallback). GPU tensors are ours or the
 * caller's {buffer, dims, dtype} and onnxruntime tensors whose location is 'gpu-buffer' (kept
 * as `tensor`); their buffer must hold the data and be one checkBoundBuffer takes.
 */
export function readGpuOrCpuTensor(fn, what, t) {
  const ours = records.get(t);
  if (ours) {
    checkNotDisposed(fn, what, t);
    return ours;
  }
  if (t === null || typeof t !== 'object') {
    throw new TypeError(`${fn}: ${what}: expected a GPU tensor {buffer, dims, dtype}, an onnxruntime tensor or a CPU tensor {data, shape}, got ${describe(t)}`);
  }
  let buffer;
  let shape;
  let declared;
  let dtypeWhat;
  if (t.location === 'gpu-buffer' && 'gpuBuffer' in t) {  // onnxruntime-web
    buffer = t.gpuBuffer;
    shape = t.dims;
    declared = t.type;
    dtypeWhat = `${what}.type`;
  } else if (isGpuBuffer(t.buffer)) {
    buffer = t.buffer;
    shape = t.dims !== undefined ? t.dims : t.shape;
    declared = t.dtype;
    dtypeWhat = `${what}.dtype`;
  } else {
    return readTensor(null, fn, what, t);
  }
  checkNotDisposed(fn, what, t);
  if (!isGpuBuffer(buffer)) {
    throw new TypeError(`${fn}: ${what}.gpuBuffer: expected a GPUBuffer, got ${describe(buffer)}`);
  }
  if (shape === undefined) throw new TypeError(`${fn}: ${what}: expected dims, got undefined`);
  const dims = readDims(fn, `${what}.dims`, shape);
  const dtype = readDtypeName(fn, dtypeWhat, declared);
  const size = countElements(fn, what, dims, dtype);
  const bytes = size * elementSize(dtype);
  checkBoundBuffer(fn, what, buffer);
  if (buffer.size < bindingBytes(bytes)) {
    throw new RangeError(`${fn}: ${what}: its GPUBuffer has ${buffer.size} bytes, shape ${shapeString(dims)} of ${dtype} needs ${bindingBytes(bytes)}`);
  }
  const record = { buffer, dtype, dims, size, bytes, tensor: t };
  if (t[OURS] === true) records.set(t, Object.freeze(record));
  return record;
}

/** Whether `t` is a GPU tensor of ours read before (its buffer, dims and dtype cannot change since). */
export function isOurTensor(t) {
  return records.has(t);
}

/** Where a result goes: options.out (a GPU tensor of the result's dtype and shape, not an input's buffer), or null. */
export function readGpuOut(fn, out, dtype, dims, inputs) {
  if (out === undefined) return null;
  const o = readGpuOrCpuTensor(fn, 'options.out', out);
  if (!o.buffer) {
    throw new TypeError(`${fn}: options.out: expected a GPU tensor {buffer, dims, dtype} (a CPU array: use read() on the result)`);
  }
  if (o.dtype !== dtype) throw new TypeError(`${fn}: options.out: expected dtype ${dtype} (the input's), got ${o.dtype}`);
  if (!sameShape(o.dims, dims)) {
    throw new RangeError(`${fn}: options.out: expected shape ${shapeString(dims)}, got ${shapeString(o.dims)}`);
  }
  for (const [name, input] of inputs) {
    if (input.buffer === o.buffer) {
      throw new RangeError(`${fn}: options.out: its GPUBuffer is ${name}'s; give the output its own buffer`);
    }
  }
  return { ...o, tensor: out };
}

/**
 * A GPU tensor as gridsample/webgpu returns it: {buffer, dims, dtype, location, ranOn,
 * dispose()}. `ranOn` says what computed it ('webgpu', or 'wasm' for dtypes the shaders do not
 * take; null for an upload); dispose() calls `release(buffer)`, then destroys the buffer (once;
 * later uses are errors).
 */
export function gpuTensor(buffer, dtype, dims, ranOn, release) {
  const t = {
    location: 'gpu-buffer',
    ranOn,
    disposed: false,
    dispose() {
      if (t.disposed) return;
      t.disposed = true;
      release?.(buffer);
      buffer.destroy();
    },
  };
  // What readGpuOrCpuTensor checks cannot change: it reads such a tensor once.
  const fixed = (value) => ({ value, enumerable: true, writable: false, configurable: false });
  return Object.defineProperties(t, { buffer: fixed(buffer), dims: fixed(Object.freeze(dims.slice())), dtype: fixed(dtype), [OURS]: { value: true } });
}
