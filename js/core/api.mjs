// The gridsample JavaScript API over one instantiated wasm module (createApi): gridSample, affineGrid, gridSampleChannelsLast, multiScaleDeformableAttention, the image warps, pixel-space matrices and heap tensors, each where the module has it; core/load_wasm.mjs loads the module.
import { checkFloatDtype, DTYPE_NAMES, elementSize, readDtypeName } from './dtypes.mjs';
import { adoptHeapTensor, HeapTensor } from './heap_tensor.mjs';
import { withDeformableBlock } from './deformable_block.mjs';
import { readDeformableSampling, readLevels } from './deformable_levels.mjs';
import { prepareRemap } from '../images/fixed_maps.mjs';
import { nameWarpMatrices, remap, warpFlowImage, warpImage } from '../images/warps.mjs';
import { affineGridOutputShape, gridSampleOutputShape, locationSteps, outputShape, readSampling, warpTable, warpTableLayout } from './library_rules.mjs';
import { matrixCalls } from '../images/matrices.mjs';
import { shapeString } from './messages.mjs';
import { countElements, readAlign, readDims, readOptions, readSize } from './plain_args.mjs';
import { readOut, readTensor } from './tensor_args.mjs';
import { WasmHeap } from './wasm_heap.mjs';
import { blockCalls, holdBlock, offersFeature, preparedCalls } from './prepared.mjs';

const DEFORMABLE_OPTIONS = ['out', 'pointsPerLevel', 'sampling'];
const SAMPLING_OPTIONS = ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners', 'out'];

// The library's rules for the API objects made here, which gridsample/onnx (output shapes, to
// size the heap tensors it keeps across runs) and gridsample/webgpu (shapes, option codes and
// names, how the planner sums taps) ask instead of restating them; not part of the public API.
const LIBRARY_RULES = new WeakMap();
// The check-only twin of each API object made here (see checkOnly).
const CHECK_ONLY = new WeakMap();
// Per module: (count) => sets the threads of its later calls (the threaded build; see threadControl).
const THREAD_CONTROL = new WeakMap();

/**
 * The rules of `api`'s module, or null when `api` was not made by this copy of the package:
 * - gridSample(xDims, gridDims), affineGrid(size): output dimensions (RangeError as the calls);
 * - multiScaleDeformableAttention(valueDims, spatialShapes, levelStartIndex, locationsDims,
 *   weightsDims, options): its output dimensions [N, Lq, M * D] for float32 tensors of those
 *   dimensions; options (optional) as the call's, of which pointsPerLevel is read;
 * - sampling(fn, opts): {mode, padding, align} codes of a sampling call's options (its errors);
 * - modeName(code), paddingName(code): the canonical names;
 * - pixelHomography(fn, name, h, space, inverse, inSize, outSize, align, inverseOption): the
 *   homography from output pixels to input pixels the warps sample h (six or nine numbers) by
 *   (images/matrices.mjs);
 * - warpTableLayout(theta, padding, width, height), warpTable(fn, kind, matrix, width, height,
 *   align): the coordinate table a WebGPU warp's shader samples from (library_rules.mjs);
 * - locationSteps(acc, steps, operands): a fused attention's locations' arithmetic on `acc`, a
 *   float32 heap tensor holding the offsets, in place (library_rules.mjs); null in a module
 *   without it.
 */
export function libraryRules(api) {
  return LIBRARY_RULES.get(api) ?? null;
}

/**
 * `api`'s check-only twin over the same module: its calls check every argument as `api`'s do
 * (same errors, the library's rules included) and return undefined before allocating or running
 * a kernel; null when `api` was not made by this copy of the package. The worker pool checks
 * its calls with it in the caller's thread, so that its errors are an instance's. Not part of
 * the public API.
 */
export function checkOnly(api) {
  return CHECK_ONLY.get(api)?.() ?? null;
}

/**
 * For the benchmark: a function that sets how many threads the later calls of module `api`
 * use (the threaded build; 1 to 64), so that one module, on the same buffers, is timed on 1
 * and 2 threads in alternating rounds. Not part of the API: `api.threads` keeps what load()
 * set.
 */
export function threadControl(api) {
  return THREAD_CONTROL.get(api) ?? null;
}

// The error of a rule asked of an API object without the feature (gridsample/core's): gridsample/onnx
// and gridsample/webgpu given such an object say so instead of calling what is not there.
function absent(what) {
  return new TypeError(`${what}: this gridsample module has GridSample and AffineGrid alone (gridsample/core); load one from 'gridsample' for the other operators`);
}

// The build a module is, from its Highway target: the SIMD128 build dispatches to WASM (or
// WASM_EMU256), the scalar one to EMU128 / SCALAR.
function variantOfTarget(target) {
  return /^WASM/.test(target) ? 'simd' : 'scalar';
}

/**
 * The end of every tensor call: output size (`output` names it) and options.out, heap copies,
 * then `call(addresses, y)` runs the binding (heap addresses of the inputs and of y), and the
 * result is handed back.
 */
function run(heap, fn, inputs, [dtype, yDims, output], opts, call) {
  const ySize = countElements(fn, output, yDims, dtype);
  const out = opts.out === undefined ? {} : readOut(heap, fn, opts.out, dtype, yDims, ySize, inputs);
  const bytes = ySize * elementSize(dtype);
  return heap.withHeap(fn, inputs, bytes, out, (addresses, y) => {
    heap.check(fn, call(addresses, y));
    return heap.result(fn, out, y, [dtype, yDims, bytes], inputs[0][1]);
  });
}

/**
 * The public object `load()` resolves to, over an Emscripten module built from src/bindings/
 * (cmake/wasm.cmake). `variant` is 'simd', 'scalar' or 'simd-threads', the build that was asked
 * for; `explicit` says the caller named it, `what` where the wasm came from, and `threads` how
 * many threads its calls may use (the threaded build only); `checks` makes the check-only twin
 * (see checkOnly); `newBuffer` allocates results' buffers (see WasmHeap). The object has the
 * functions whose bindings the module has (the core module: GridSample and AffineGrid alone),
 * and with `core` (gridsample/core) no more than the core's, whichever module it is.
 */
export function createApi(Module, variant, { explicit = false, what = 'the wasm', threads = 1, checks = false, newBuffer, core = false } = {}) {
  // The glues of the simd and scalar builds are interchangeable, so the wasm decides what runs.
  // A build other than the one named is an error; with variant 'auto' we report what was
  // loaded. (The threaded build's glue takes only its own wasm: instantiate() says so.)
  const actual = variant === 'simd-threads' ? variant : variantOfTarget(Module.activeTarget());
  if (actual !== variant) {
    if (explicit) {
      throw new TypeError(`load: ${what}: expected the '${variant}' build (gridsample-${variant}.wasm), got the '${actual}' build (Highway target ${Module.activeTarget()}); give variant: '${actual}' or the ${variant} wasm`);
    }
    variant = actual;
  }
  const heap = new WasmHeap(Module, { checkOnly: checks, newBuffer });
  // A feature beyond the core is offered where the module links it (prepared.mjs's offersFeature).
  const offers = (feature) => !core && offersFeature(Module, feature);

  const blockCall = blockCalls(heap);

  // A call the library validates and runs in one crossing from the module's call block (see
  // core/prepared.mjs): `check` is the call's own argument checks, returning its output's
  // dimensions, run for a call not seen lately; `output` names its output in messages.
  function runSampler(fn, op, inputs, opts, sampling, check, { size, output = 'the output' } = {}) {
    const entry = blockCall(op, inputs.map(([, t]) => t), sampling, size, check);
    const { call, outDims } = entry;
    return run(heap, fn, inputs, [inputs[0][1].dtype, outDims, output], opts, ([a, b], y) =>
      Module._gridsample_call(holdBlock(heap, entry, call, outDims), a, b ?? 0, 0, y));
  }

  function gridSample(x, grid, options) {
    const fn = 'gridSample';
    const opts = readOptions(fn, options, SAMPLING_OPTIONS);
    const X = readTensor(heap, fn, 'x', x);
    const G = readTensor(heap, fn, 'grid', grid);
    const sampling = readSampling(heap, fn, opts);
    return runSampler(fn, 'gridSample', [['x', X], ['grid', G]], opts, sampling, () => {
      const yDims = gridSampleOutputShape(heap, fn, X.dims, G.dims);
      checkFloatDtype(fn, 'grid', G.dtype);
      return yDims;
    });
  }

  // Channels-last tensors: rank 4, the output sized by the library's rule (library_rules.mjs).
  function gridSampleChannelsLast(x, grid, options) {
    const fn = 'gridSampleChannelsLast';
    const opts = readOptions(fn, options, SAMPLING_OPTIONS);
    const X = readTensor(heap, fn, 'x', x);
    const G = readTensor(heap, fn, 'grid', grid);
    const sampling = readSampling(heap, fn, opts);
    return runSampler(fn, 'gridSampleChannelsLast', [['x', X], ['grid', G]], opts, sampling,
      () => outputShape(heap, fn, 'gridSampleChannelsLastOutputShape', X, G));
  }

  // NCHW tensors warped backward by a flow (N, 2, Ho, Wo) in pixels, the output sized by the
  // library's rule. An interleaved image ({data, width, height} or a heap tensor [H, W, C])
  // goes to images/warps.mjs.
  function warpFlow(x, flow, options) {
    const fn = 'warpFlow';
    const image = x !== null && typeof x === 'object' &&
      (x instanceof HeapTensor ? x.shape.length === 3 : !('shape' in x) && !('dims' in x));
    if (image) return warpFlowImage(heap, x, flow, options);
    const opts = readOptions(fn, options, ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners', 'out']);
    const X = readTensor(heap, fn, 'x', x);
    const F = readTensor(heap, fn, 'flow', flow);
    const sampling = readSampling(heap, fn, opts);
    return runSampler(fn, 'warpFlow', [['x', X], ['flow', F]], opts, sampling,
      () => outputShape(heap, fn, 'warpFlowOutputShape', X, F));
  }

  function affineGrid(theta, size, options) {
    const fn = 'affineGrid';
    const opts = readOptions(fn, options, ['alignCorners', 'align_corners', 'out']);
    const T = readTensor(heap, fn, 'theta', theta);
    const S = readSize(fn, size);
    const align = readAlign(fn, opts);
    // theta's shape is the library's to check, when it prepares the call.
    return runSampler(fn, 'affineGrid', [['theta', T]], opts, { mode: 0, padding: 0, align }, () => {
      checkFloatDtype(fn, 'theta', T.dtype);
      return affineGridOutputShape(heap, fn, S);
    }, { size: S, output: 'the output grid' });
  }

  // Deformable DETR's attention sampling (DESIGN.md section 12): the output-shape query and the
  // call by one block (core/deformable_block.mjs), which holds the levels.
  function multiScaleDeformableAttention(value, spatialShapes, levelStartIndex, samplingLocations, attentionWeights, options) {
    const fn = 'multiScaleDeformableAttention';
    const opts = readOptions(fn, options, DEFORMABLE_OPTIONS);
    const sampling = readDeformableSampling(fn, opts.sampling);
    const V = readTensor(heap, fn, 'value', value);
    const levels = readLevels(fn, spatialShapes, levelStartIndex, opts.pointsPerLevel);
    const S = readTensor(heap, fn, 'samplingLocations', samplingLocations);
    const W = readTensor(heap, fn, 'attentionWeights', attentionWeights);
    return withDeformableBlock(heap, fn, [V, S, W], levels, (call) => {
      const inputs = [['value', V], ['samplingLocations', S], ['attentionWeights', W]];
      return run(heap, fn, inputs, [V.dtype, call.outputShape(), 'the output'], opts, (pointers, yp) => call.run(pointers, yp, sampling));
    });
  }

  function newHeapTensor(fn, dtype, dims) {
    const size = countElements(fn, `a ${dtype} tensor`, dims, dtype);
    const bytes = size * elementSize(dtype);
    heap.checkBudget(fn, [[`a ${dtype} tensor of shape ${shapeString(dims)}`, bytes]]);
    const ptr = heap.allocate(fn, `a ${dtype} tensor of shape ${shapeString(dims)}`, bytes);
    return adoptHeapTensor(heap, ptr, dtype, dims, size);
  }

  function tensor(dtype, shape) {
    const fn = 'tensor';
    const name = readDtypeName(fn, 'dtype', dtype);
    const dims = readDims(fn, 'shape', shape);
    const t = newHeapTensor(fn, name, dims);
    const at = HeapTensor.addressIn(t, heap);
    Module.HEAPU8.fill(0, at, at + t.byteLength);
    return t;
  }

  function tensorFrom(source) {
    const fn = 'tensorFrom';
    const s = readTensor(heap, fn, 'source', source);
    const t = newHeapTensor(fn, s.dtype, s.dims);
    const to = HeapTensor.addressIn(t, heap);
    if (s.ptr) {
      Module.HEAPU8.copyWithin(to, s.ptr, s.ptr + s.bytes);
    } else {
      try {
        heap.checkUnchanged(fn, 'source.data', s.data, s.bytes);
      } catch (e) {
        t.dispose();
        throw e;
      }
      Module.HEAPU8.set(new Uint8Array(s.data.buffer, s.data.byteOffset, s.bytes), to);
    }
    return t;
  }

  const matrices = matrixCalls(heap);
  if (offers('setMatrixWords')) nameWarpMatrices(Module);
  const api = Object.freeze({
    backend: { simd: 'wasm-simd128', scalar: 'wasm-scalar', 'simd-threads': 'wasm-simd128-threads' }[variant],
    variant,
    threads: Module.setThreads(threads),
    target: Module.activeTarget(),
    dtypes: DTYPE_NAMES,
    gridSample,
    affineGrid,
    ...offers('warpAffine') && { warpAffine: (image, theta, options) => warpImage(heap, 'warpAffine', image, theta, options) },
    ...offers('warpPerspective') && { warpPerspective: (image, h, options) => warpImage(heap, 'warpPerspective', image, h, options) },
    ...offers('remap') && { remap: (image, mapX, mapY, options) => remap(heap, image, mapX, mapY, options) },
    ...offers('prepareRemapFixed') && { prepareRemap: (image, mapX, mapY, options) => prepareRemap(heap, image, mapX, mapY, options) },
    ...offers('warpAffine') && { rotationMatrix: matrices.rotationMatrix },
    ...offers('warpPerspective') && { perspectiveTransform: matrices.perspectiveTransform },
    ...offers('gridSampleChannelsLast') && { gridSampleChannelsLast },
    ...offers('warpFlow') && { warpFlow },
    ...offers('multiScaleDeformableAttention') && { multiScaleDeformableAttention },
    ...preparedCalls(heap, { channelsLast: offers('gridSampleChannelsLast'), warpFlow: offers('warpFlow') }),
    tensor,
    tensorFrom,
    heapUsed: () => Module.heapUsed(),
    heapSize: () => Module.HEAPU8.buffer.byteLength,
  });
  let twin = checks ? api : null;
  CHECK_ONLY.set(api, () => (twin ??= createApi(Module, variant, { threads, checks: true, newBuffer })));
  if (variant === 'simd-threads') THREAD_CONTROL.set(api, (count) => Module.setThreads(count));
  LIBRARY_RULES.set(api, {
    gridSample: (xDims, gridDims) => gridSampleOutputShape(heap, 'gridSample',
      readDims('gridSample', 'x.dims', xDims), readDims('gridSample', 'grid.dims', gridDims)),
    affineGrid: (size) => affineGridOutputShape(heap, 'affineGrid', readDims('affineGrid', 'size', size)),
    multiScaleDeformableAttention: (valueDims, spatialShapes, levelStartIndex, locationsDims, weightsDims, options) => {
      const fn = 'multiScaleDeformableAttention';
      if (!api.multiScaleDeformableAttention) throw absent(fn);
      const levels = readLevels(fn, spatialShapes, levelStartIndex, options?.pointsPerLevel);
      const float32 = (what, dims) => ({ dtype: 'float32', dims: readDims(fn, `${what}.dims`, dims) });
      const tensors = [['value', valueDims], ['samplingLocations', locationsDims], ['attentionWeights', weightsDims]].map(([what, dims]) => float32(what, dims));
      return withDeformableBlock(heap, fn, tensors, levels, (call) => call.outputShape());
    },
    sampling: (fn, opts) => readSampling(heap, fn, opts),
    modeName: (code) => Module.modeName(code),
    paddingName: (code) => Module.paddingName(code),
    pixelHomography: (...args) => {
      if (!offers('pixelHomography')) throw absent('the image warps');
      return matrices.pixelHomography(...args);
    },
    warpTableLayout: (...args) => {
      if (!offers('fillWarpTable')) throw absent('the image warps');
      return warpTableLayout(heap, ...args);
    },
    warpTable: (...args) => warpTable(heap, ...args),
    // gridsample/onnx asks before it fuses the locations' arithmetic (absent: not fused).
    locationSteps: offers('locationStep') ? (acc, steps, operands) => {
      const fn = 'multiScaleDeformableAttention';
      const at = HeapTensor.addressIn(acc, heap, fn, 'the locations');
      if (at <= 0 || acc.dtype !== 'float32') throw new TypeError(`${fn}: the locations must be a live float32 heap tensor of this module`);
      locationSteps(heap, fn, at, acc.dims, steps, operands);
    } : null,
  });
  return api;
}
