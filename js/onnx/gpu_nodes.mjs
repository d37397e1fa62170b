// The gridsample nodes of a split session on WebGPU (gridsample/webgpu on onnxruntime's device): which backend a session uses and why, and the nodes (GridSample, AffineGrid, the multi-scale deformable attention) run on GPU tensors, their results kept in buffers of their own across runs and handed to onnxruntime with Tensor.fromGpuBuffer.
import { describe, quote } from './errors.mjs';
import { sameShape } from '../core/messages.mjs';
import { onHost, typeOf, usesProvider } from './values.mjs';

export const BACKENDS = ['auto', 'webgpu', 'wasm'];

/**
 * Where the session's gridsample nodes run: {backend: 'webgpu' | 'wasm', why}. `backend` is the
 * gridsampleBackend option; WebGPU needs onnxruntime on WebGPU (a part boundary on the GPU
 * costs nothing, one between devices a copy each way).
 */
export function chooseBackend(backend, executionProviders) {
  if (!BACKENDS.includes(backend)) {
    throw new TypeError(`InferenceSession.create: options.gridsampleBackend: expected ${BACKENDS.map(quote).join(', ')}, got ${describe(backend)}`);
  }
  const webgpu = usesProvider(executionProviders, ['webgpu']);
  if (backend === 'webgpu' && !webgpu) {
    throw new TypeError("InferenceSession.create: options.gridsampleBackend 'webgpu' needs onnxruntime on WebGPU too: executionProviders: ['webgpu']");
  }
  if (backend === 'wasm') return { backend: 'wasm', why: "gridsampleBackend: 'wasm'" };
  if (!webgpu) return { backend: 'wasm', why: 'onnxruntime runs on the CPU (no webgpu execution provider)' };
  return { backend: 'webgpu', why: backend === 'webgpu' ? "gridsampleBackend: 'webgpu'" : "executionProviders include 'webgpu': onnxruntime's GPU tensors are read in place" };
}

/**
 * gridsample/webgpu on onnxruntime's device (which exists once a session of the webgpu provider
 * does), or on a device of its own when the model has no onnxruntime part; null where WebGPU
 * is missing (onnxruntime then ran on another provider), with the reason.
 */
export async function sessionGpu(ort, gs, hasOrtParts) {
  if (!globalThis.navigator?.gpu) return { gpu: null, why: 'WebGPU is not available here (no navigator.gpu)' };
  let device;
  if (hasOrtParts) {
    try {
      device = await ort.env?.webgpu?.device;
    } catch {
      device = undefined;
    }
    if (!device) return { gpu: null, why: "onnxruntime made no WebGPU device (ort.env.webgpu.device): it runs on another provider" };
  }
  // Loaded here, so that pages without WebGPU do not download it.
  const { createGpu } = await import('../webgpu/index.mjs');
  return { gpu: await createGpu({ device, wasm: gs }), why: null };
}

// A tensor argument of gridsample/webgpu: a GPU tensor as it is, a CPU one as {data, dims, dtype}.
const gpuInput = (t) => (onHost(t) ? { data: t.data, dims: t.dims, dtype: typeOf(t) } : t);

/**
 * The gridsample nodes of one session on `gpu`: run() and attention() compute a node into a GPU buffer it keeps
 * for the value across runs (remade when its dtype or dims change) and returns onnxruntime's tensor of
 * it; a graph output gets a buffer of its own, returned on the GPU or read back as the caller's
 * preferredOutputLocation says.
 */
export class GpuNodes {
  #ort;
  #gpu;
  #held = new Map(); // value name -> {tensor (ours), ort (onnxruntime's view of it)}

  constructor(ort, gpu) {
    this.#ort = ort;
    this.#gpu = gpu;
  }

  get gpu() {
    return this.#gpu;
  }

  /** Node `n` (GridSample or AffineGrid) on inputs a and b; `where` as #result's. */
  run(n, a, b, where) {
    const gpu = this.#gpu;
    const call = (out) => (n.node.opType === 'GridSample'
      ? gpu.gridSample(gpuInput(a), gpuInput(b), { ...n.attrs, out })
      : gpu.affineGrid(gpuInput(a), onHost(b) ? b.data : b, { ...n.attrs, out }));
    return this.#result(n.node.output[0], call, where);
  }

  /**
   * A multi-scale deformable attention node (fused or mmdeploy's) on multiScaleDeformableAttention's
   * arguments (value, locations and weights on the GPU or the CPU, the levels on the CPU, then the
   * fused form's options: pointsPerLevel, sampling); `where` as #result's.
   */
  attention(n, [value, shapes, starts, loc, weights, options], where) {
    const call = (out) => this.#gpu.multiScaleDeformableAttention(gpuInput(value), shapes, starts, gpuInput(loc), gpuInput(weights), { ...options, out });
    return this.#result(n.node.output[0], call, where);
  }

  // Value `name` computed by call(out): into the buffer kept for it across runs (remade when
  // `dtype` or `dims`, the library's for the result, change); a graph output (`graphOutput`)
  // into a buffer of its own, returned on the GPU or read back as `location` says.
  async #result(name, call, { graphOutput, location, dtype, dims }) {
    const gpu = this.#gpu;
    if (graphOutput) {
      const y = await call(undefined);
      if (location === 'gpu-buffer') return this.#ortTensor(y, () => y.dispose());
      const { data } = await gpu.read(y);
      y.dispose();
      return new this.#ort.Tensor(y.dtype, data, [...y.dims]);
    }
    let held = this.#held.get(name);
    if (held && !(held.tensor.dtype === dtype && sameShape(held.tensor.dims, dims))) {
      held.tensor.dispose();
      this.#held.delete(name);
      held = undefined;
    }
    const y = await call(held?.tensor);
    if (held) return held.ort;
    const entry = { tensor: y, ort: this.#ortTensor(y) };
    this.#held.set(name, entry);
    return entry.ort;
  }

  // onnxruntime's tensor over our buffer: getData() reads it back; `dispose` when the caller owns it.
  #ortTensor(y, dispose) {
    const download = async () => (await this.#gpu.read(y)).data;
    return this.#ort.Tensor.fromGpuBuffer(y.buffer, { dataType: y.dtype, dims: [...y.dims], download, ...(dispose ? { dispose } : {}) });
  }

  release() {
    for (const { tensor } of this.#held.values()) tensor.dispose();
    this.#held.clear();
  }
}
