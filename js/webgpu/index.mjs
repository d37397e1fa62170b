// gridsample/webgpu: GridSample, AffineGrid, multi-scale deformable attention and the image warps on a GPUDevice (the caller's, e.g. onnxruntime-web's, or its own), on GPU tensors and images that stay there until read(); DESIGN.md section 11. The wasm module answers the library's rules (shapes, option names, how taps are summed) and computes the dtypes the shaders do not take.
import { libraryRules } from '../core/api.mjs';
import { arrayClass, checkFloatDtype, elementSize } from '../core/dtypes.mjs';
import { describe, sameShape } from '../core/messages.mjs';
import { readAlign, readOptions, readSize } from '../core/plain_args.mjs';
import { affineGridParams, affineGridWgsl } from './affine_grid_wgsl.mjs';
import { makeDeformableAttention } from './deformable_attention.mjs';
import { Dispatcher, RESULT_USAGE } from './dispatch.mjs';
import { gridSampleLayout, gridSampleParams, gridSampleWgsl } from './grid_sample_wgsl.mjs';
import { checkEncoder, checkNotDisposed, gpuTensor, isOurTensor, readGpuOrCpuTensor, readGpuOut, USAGE } from './tensors.mjs';
import { imagePixels, importImage as copyToGpuImage, readGpuImage } from './gpu_images.mjs';
import { makeWarps } from './warps.mjs';

// The dtypes the shaders compute (float16 as storage, computed in float32 as on the CPU).
const GPU_DTYPES = new Set(['float32', 'float16']);
// A sampling call's options: those that choose the sampling, then where it goes.
const SAMPLING_KEYS = ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners'];
const SAMPLING_OPTIONS = [...SAMPLING_KEYS, 'out', 'encoder'];

async function ownDevice() {
  const gpu = globalThis.navigator?.gpu;
  if (!gpu) {
    throw new Error('createGpu: WebGPU is not available here (no navigator.gpu); pass options.device, or use the wasm API (import { load } from "gridsample")');
  }
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('createGpu: navigator.gpu.requestAdapter() found no GPU adapter');
  // The largest bindings the adapter allows: a tensor is bound whole.
  const { maxStorageBufferBindingSize, maxBufferSize } = adapter.limits;
  return adapter.requestDevice({ requiredLimits: { maxStorageBufferBindingSize, maxBufferSize } });
}

function isDevice(d) {
  return d !== null && typeof d === 'object' && typeof d.createComputePipeline === 'function' && typeof d.queue === 'object';
}

/**
 * The GPU API on `options.device` (a GPUDevice; omitted: a new one of navigator.gpu's adapter)
 * and `options.wasm` (an API object from gridsample's load(); omitted: load()).
 */
export async function createGpu(options) {
  const fn = 'createGpu';
  const opts = readOptions(fn, options, ['device', 'wasm']);
  if (opts.device !== undefined && !isDevice(opts.device)) {
    throw new TypeError(`${fn}: options.device: expected a GPUDevice, got ${describe(opts.device)}`);
  }
  // The package's own load() only when no module is given (an app's bundle, or a module worker
  // without import maps, passes the one it loaded).
  const wasm = opts.wasm ?? await (await import('#gridsample')).load();
  const rules = libraryRules(wasm);
  if (!rules) throw new TypeError(`${fn}: options.wasm: expected an API object from this gridsample package's load(), got ${describe(opts.wasm)}`);
  const device = opts.device ?? await ownDevice();
  return makeGpu(device, wasm, rules);
}

function makeGpu(device, wasm, rules) {
  const gpu = new Dispatcher(device);

  // Inputs on the GPU, uploading CPU ones (listed in `temporaries`).
  function onGpu(t, temporaries) {
    if (t.buffer) return t;
    const buffer = gpu.buffer(t.bytes, RESULT_USAGE, t.data);
    temporaries.push(buffer);
    return { ...t, buffer };
  }

  // A tensor record (the argument `what`) on the CPU, as the wasm API takes it and read() returns it (GPU ones read back).
  async function onCpu(fn, what, t) {
    if (!t.buffer) return t;
    const bytes = await gpu.download(fn, what, t.buffer, t.bytes);
    return { data: new (arrayClass(t.dtype))(bytes.buffer, 0, t.size), shape: t.dims.slice(), dtype: t.dtype };
  }

  // A GPU tensor of ours: its buffer bound without a check of its own, batched work that may
  // bind it submitted before dispose() destroys it.
  const ours = (buffer, dtype, dims, ranOn) => gpuTensor(gpu.own(buffer), dtype, dims, ranOn, (b) => gpu.release(b));

  // The result of a call: into options.out, or a new GPU tensor.
  function resultOf(out, dtype, dims, bytes, ranOn) {
    if (out) return { tensor: out.tensor, buffer: out.buffer };
    const buffer = gpu.buffer(bytes, RESULT_USAGE);
    return { tensor: ours(buffer, dtype, dims, ranOn), buffer };
  }

  // A shader's call: its pipeline (compiled once per key), the result (out, or a new tensor),
  // `invocations` over the workgroup grid, the uniform block `params(invocations, width)`, the
  // inputs ([name, record]; CPU ones uploaded) and the result bound in that order. GPU tensors
  // disposed while the pipeline compiled are refused before anything is bound.
  async function compute(fn, shader, { inputs, out, dtype, dims, bytes, encoder, invocations, params }) {
    checkEncoder(fn, encoder);
    const r = resultOf(out, dtype, dims, bytes, 'webgpu');
    if (bytes === 0) return r.tensor;
    const temporaries = [];
    const outName = out ? 'options.out' : 'the output';
    try {
      const pipeline = gpu.compiled(shader.key) ?? await gpu.pipeline(fn, shader.key, shader.wgsl);
      for (const [name, t] of inputs) checkNotDisposed(fn, name, t.tensor);
      checkNotDisposed(fn, outName, out?.tensor);
      const groups = gpu.groups(fn, invocations);
      const bindings = inputs.map(([name, t]) => [name, onGpu(t, temporaries).buffer, t.bytes]);
      const checked = gpu.run(fn, pipeline, params(invocations, groups.width), [...bindings, [outName, r.buffer, bytes]], groups, { encoder, temporaries });
      if (checked) await checked;
    } catch (e) {
      if (!out) r.tensor.dispose();
      throw e;
    }
    return r.tensor;
  }

  // Dtypes the shaders do not take: the wasm module computes, the result is uploaded.
  async function fallback(fn, opts, out, dtype, dims, onWasm) {
    if (opts.encoder !== undefined) {
      throw new TypeError(`${fn}: options.encoder: ${dtype} runs on the wasm module, which cannot record into a command encoder; submit your work first and call without encoder`);
    }
    if (out && !(out.buffer.usage & USAGE.COPY_DST)) {
      throw new TypeError(`${fn}: options.out: ${dtype} runs on the wasm module, whose result is copied into out's GPUBuffer, which lacks COPY_DST usage`);
    }
    const y = await onWasm();
    const r = resultOf(out, dtype, dims, y.data.byteLength, 'wasm');
    try {
      await gpu.upload(fn, out ? 'options.out' : 'the output', r.buffer, y.data);
    } catch (e) {
      if (!out) r.tensor.dispose();
      throw e;
    }
    return r.tensor;
  }

  // What the library's rules say of a GridSample's shapes, dtypes and sampling codes (output
  // shape, the shader's key): asked once per distinct call (64 kept), the last call's compared
  // first without building its signature (a call repeated on new data).
  const gridSamplePlans = new Map();
  let lastPlan = null;
  function gridSamplePlan(X, G, sampling) {
    const last = lastPlan;
    if (last && last.xDtype === X.dtype && last.gDtype === G.dtype && last.mode === sampling.mode && last.padding === sampling.padding
      && last.align === sampling.align && sameShape(last.xDims, X.dims) && sameShape(last.gDims, G.dims)) {
      return last.plan;
    }
    const signature = `${X.dtype} ${X.dims} ${G.dtype} ${G.dims} ${sampling.mode} ${sampling.padding} ${sampling.align}`;
    let plan = gridSamplePlans.get(signature);
    if (plan) return remember(X, G, sampling, plan);
    const yDims = rules.gridSample(X.dims, G.dims);
    checkFloatDtype('gridSample', 'grid', G.dtype);
    const [n, c] = yDims;
    const outSpatial = yDims.slice(2).reduce((a, b) => a * b, 1);
    plan = { yDims, n, c, outSpatial, total: n * c * outSpatial, onGpu: GPU_DTYPES.has(X.dtype) && GPU_DTYPES.has(G.dtype) };
    if (plan.onGpu) {
      const { layout, groups, invocations } = gridSampleLayout({ n, c, outSpatial, dtype: X.dtype });
      const key = {
        rank: X.dims.length - 2,
        mode: rules.modeName(sampling.mode),
        padding: rules.paddingName(sampling.padding),
        align: sampling.align,
        xHalf: X.dtype === 'float16',
        gridHalf: G.dtype === 'float16',
        layout,
      };
      Object.assign(plan, { key, keyString: `gs:${JSON.stringify(key)}`, groups, invocations });
    }
    if (gridSamplePlans.size >= 64) gridSamplePlans.delete(gridSamplePlans.keys().next().value);
    gridSamplePlans.set(signature, plan);
    return remember(X, G, sampling, plan);
  }
  function remember(X, G, { mode, padding, align }, plan) {
    lastPlan = { xDtype: X.dtype, xDims: X.dims.slice(), gDtype: G.dtype, gDims: G.dims.slice(), mode, padding, align, plan };
    return plan;
  }

  // The last gridSample into each options.out of ours, on tensors of ours, run on the GPU: a call
  // repeating it (the same tensors, none disposed, the same sampling options, no encoder) is
  // dispatched without its arguments read and checked again (what was checked cannot change:
  // the tensors' buffers, dims and dtypes are fixed). Keyed by out, x and grid held weakly: it
  // keeps no tensor alive.
  const lastCalls = new WeakMap();
  function repeatedCall(x, grid, opts) {
    if (opts.out === undefined || opts.encoder !== undefined) return null;
    const last = lastCalls.get(opts.out);
    if (last === undefined || x !== last.x.deref() || grid !== last.grid.deref() || x.disposed || grid.disposed || opts.out.disposed) {
      return null;
    }
    for (const key of SAMPLING_KEYS) if (opts[key] !== last.opts[key]) return null;
    return last;
  }

  async function gridSample(x, grid, options) {
    const fn = 'gridSample';
    gpu.checkDevice(fn);
    const opts = readOptions(fn, options, SAMPLING_OPTIONS);
    const last = repeatedCall(x, grid, opts);
    if (last) {
      const { pipeline, plan, bytes, groups } = last;
      const bindings = [['x', x.buffer, bytes[0]], ['grid', grid.buffer, bytes[1]], ['options.out', opts.out.buffer, bytes[2]]];
      const checked = gpu.run(fn, pipeline, plan.params, bindings, groups);
      if (checked) await checked;
      return opts.out;
    }
    const X = readGpuOrCpuTensor(fn, 'x', x);
    const G = readGpuOrCpuTensor(fn, 'grid', grid);
    const sampling = rules.sampling(fn, opts);
    const plan = gridSamplePlan(X, G, sampling);
    const { yDims, n, c, outSpatial, total } = plan;
    const out = readGpuOut(fn, opts.out, X.dtype, yDims, [['x', X], ['grid', G]]);
    const bytes = total * elementSize(X.dtype);
    if (!plan.onGpu) {
      const { encoder: _e, out: _o, ...cpuOptions } = opts;
      return fallback(fn, opts, out, X.dtype, yDims, async () =>
        wasm.gridSample(await onCpu(fn, 'x', X), await onCpu(fn, 'grid', G), cpuOptions));
    }
    gpu.checkBinding(fn, 'x', X.bytes);
    gpu.checkBinding(fn, 'grid', G.bytes);
    gpu.checkBinding(fn, 'the output', bytes);
    const { key, groups, invocations } = plan;
    const y = await compute(fn, { key: plan.keyString, wgsl: () => gridSampleWgsl(key) }, {
      inputs: [['x', X], ['grid', G]], out, dtype: X.dtype, dims: yDims, bytes, encoder: opts.encoder,
      invocations,
      // The same block for every call of this plan (groups.width depends on invocations only).
      params: (invocations, width) => (plan.params ??= gridSampleParams({ n, c, inDims: X.dims.slice(2), outSpatial, invocations, width, groups })),
    });
    const pipeline = gpu.compiled(plan.keyString);
    if (out && opts.encoder === undefined && pipeline && isOurTensor(x) && isOurTensor(grid) && isOurTensor(opts.out)) {
      lastCalls.set(opts.out, {
        x: new WeakRef(x), grid: new WeakRef(grid), plan, pipeline,
        opts: Object.fromEntries(SAMPLING_KEYS.map((k) => [k, opts[k]])), groups: gpu.groups(fn, invocations), bytes: [X.bytes, G.bytes, bytes],
      });
    }
    return y;
  }

  async function affineGrid(theta, size, options) {
    const fn = 'affineGrid';
    gpu.checkDevice(fn);
    const opts = readOptions(fn, options, ['alignCorners', 'align_corners', 'out', 'encoder']);
    const T = readGpuOrCpuTensor(fn, 'theta', theta);
    const S = readSize(fn, size);
    const align = readAlign(fn, opts);
    checkFloatDtype(fn, 'theta', T.dtype);
    const gDims = rules.affineGrid(S);
    // theta's shape is the library's to check, in the call: a shape other than (N, r, r + 1)
    // is shown to it (on zeros), which throws its message.
    const rank = S.length - 2;
    if (!sameShape(T.dims, [S[0], rank, rank + 1])) {
      wasm.affineGrid({ data: new (arrayClass(T.dtype))(T.size), shape: T.dims, dtype: T.dtype }, S, { alignCorners: align });
    }
    const out = readGpuOut(fn, opts.out, T.dtype, gDims, [['theta', T]]);
    const total = gDims.reduce((a, b) => a * b, 1);
    const bytes = total * elementSize(T.dtype);
    if (!GPU_DTYPES.has(T.dtype)) {
      return fallback(fn, opts, out, T.dtype, gDims, async () =>
        wasm.affineGrid(await onCpu(fn, 'theta', T), S, { alignCorners: align }));
    }
    gpu.checkBinding(fn, 'the output grid', bytes);
    const half = T.dtype === 'float16';
    const key = { rank, align, half };
    return compute(fn, { key: `ag:${JSON.stringify(key)}`, wgsl: () => affineGridWgsl(key) }, {
      inputs: [['theta', T]], out, dtype: T.dtype, dims: gDims, bytes, encoder: opts.encoder,
      invocations: half ? Math.ceil(total / 2) : total,
      params: (invocations, width) => affineGridParams({ n: S[0], spatial: S.slice(2), invocations, width }),
    });
  }

  // An image: {data, width, height, ...} or a GPU image {buffer, width, height, channels, dtype}.
  const isImage = (t) => t !== null && typeof t === 'object' && 'width' in t && 'height' in t;

  async function read(t) {
    const fn = 'read';
    gpu.checkDevice(fn);
    if (isImage(t)) {
      const I = readGpuImage(fn, 'image', t);
      if (!I.buffer) throw new TypeError(`${fn}: image: expected a GPU image {buffer, width, height, channels, dtype}, got one on the CPU`);
      const data = imagePixels(I, await gpu.download(fn, 'image', I.buffer, I.bytes));
      return { data, width: I.width, height: I.height, channels: I.channels };
    }
    const T = readGpuOrCpuTensor(fn, 'tensor', t);
    if (!T.buffer) throw new TypeError(`${fn}: tensor: expected a GPU tensor {buffer, dims, dtype}, got one on the CPU`);
    return onCpu(fn, 'tensor', T);
  }

  // A GPU tensor of `dtype` and `dims` holding a CPU array's values (for feeding the calls), or
  // a GPU image holding a CPU image's pixels.
  function upload(source) {
    const fn = 'upload';
    gpu.checkDevice(fn);
    if (isImage(source)) {
      const I = readGpuImage(fn, 'source', source);
      if (I.buffer) throw new TypeError(`${fn}: source: expected a CPU image {data, width, height}, got one on the GPU`);
      const buffer = gpu.buffer(I.bytes, RESULT_USAGE | USAGE.COPY_SRC, I.data);
      return Object.assign(ours(buffer, I.dtype, [I.height, I.width, I.channels], null), { width: I.width, height: I.height, channels: I.channels });
    }
    const T = readGpuOrCpuTensor(fn, 'source', source);
    if (T.buffer) throw new TypeError(`${fn}: source: expected a CPU tensor {data, shape}, got one on the GPU`);
    return ours(gpu.buffer(T.bytes, RESULT_USAGE | USAGE.COPY_SRC, T.data), T.dtype, T.dims, null);
  }

  // Submits the work of earlier calls now (it is submitted by itself when the task ends, when 64
  // calls are pending, and before any other work on the device's queue) and resolves once the
  // GPU has checked it: a GPU error of that work rejects here, or else at the next call or read().
  function flush() {
    try {
      gpu.checkDevice('flush');
    } catch (e) {
      return Promise.reject(e);
    }
    return gpu.settle('flush');
  }

  const checkBinding = (fn, what, bytes) => gpu.checkBinding(fn, what, bytes);
  const { warpAffine, warpPerspective, remap } = makeWarps({ compute, checkBinding, rules, wasm });
  const multiScaleDeformableAttention = makeDeformableAttention({ compute, fallback, onCpu, checkBinding, gpuDtypes: GPU_DTYPES, rules, wasm });
  // An RGBA uint8 GPU image of a texture, ImageBitmap, VideoFrame, canvas or video, by GPU copies.
  // The device lost during the copies: no image of a dead device.
  const importImage = async (source) => {
    const image = await copyToGpuImage(device, 'importImage', source, (buffer, dims, extra) => Object.assign(ours(buffer, 'uint8', dims, null), extra));
    try {
      gpu.checkDevice('importImage');
    } catch (e) {
      image.dispose();
      throw e;
    }
    return image;
  };
  // The image calls, each refused first when the device was lost.
  const checked = (fn, call) => async (...args) => {
    gpu.checkDevice(fn);
    return call(...args);
  };
  return Object.freeze({
    device, wasm, gridSample, affineGrid,
    warpAffine: checked('warpAffine', warpAffine),
    warpPerspective: checked('warpPerspective', warpPerspective),
    remap: checked('remap', remap),
    multiScaleDeformableAttention: checked('multiScaleDeformableAttention', multiScaleDeformableAttention),
    importImage: checked('importImage', importImage),
    read, upload, flush,
  });
}
