// gridsample/webgpu's multiScaleDeformableAttention (DESIGN.md section 12): the CPU call's arguments and one-line errors (the library's, asked through the wasm module before any GPU work), float32 and float16 on the GPU (options.pointsPerLevel and options.sampling included), bfloat16 on the wasm module.
import { arrayClass, elementSize } from '../core/dtypes.mjs';
import { readDeformableSampling, readLevels } from '../core/deformable_levels.mjs';
import { readOptions } from '../core/plain_args.mjs';
import { deformableAttentionParams, deformableAttentionWgsl, GROUP, levelTable } from './deformable_attention_wgsl.mjs';
import { readGpuOrCpuTensor, readGpuOut } from './tensors.mjs';

/**
 * multiScaleDeformableAttention over index.mjs's `compute` (one shader's dispatch), `fallback`
 * (a call the wasm module computes, its result uploaded), `onCpu` (a tensor argument on the
 * CPU), `checkBinding` (bytes that fit one binding), `gpuDtypes` (the dtypes the shaders take),
 * `rules` (the library's) and `wasm` (the module whose call it mirrors).
 */
export function makeDeformableAttention({ compute, fallback, onCpu, checkBinding, gpuDtypes, rules, wasm }) {
  // The dtypes are the library's to check (float32, float16 or bfloat16 each): shown to it on
  // one-element inputs of those dtypes, in a call that throws its message (value's first).
  function checkDtypes(fn, V, S, W) {
    const one = (t, shape) => ({ data: new (arrayClass(t.dtype))(shape.reduce((a, b) => a * b, 1)), shape, dtype: t.dtype });
    wasm.multiScaleDeformableAttention(one(V, [1, 1, 1, 1]), [[1, 1]], [0], one(S, [1, 1, 1, 1, 1, 2]), one(W, [1, 1, 1, 1, 1]));
  }

  return async function multiScaleDeformableAttention(value, spatialShapes, levelStartIndex, samplingLocations, attentionWeights, options) {
    const fn = 'multiScaleDeformableAttention';
    // Read in the CPU call's order: options, value, the levels, the locations, the weights.
    const opts = readOptions(fn, options, ['out', 'encoder', 'pointsPerLevel', 'sampling']);
    const sampling = readDeformableSampling(fn, opts.sampling);
    const V = readGpuOrCpuTensor(fn, 'value', value);
    const { count, values, listed } = readLevels(fn, spatialShapes, levelStartIndex, opts.pointsPerLevel);
    const S = readGpuOrCpuTensor(fn, 'samplingLocations', samplingLocations);
    const W = readGpuOrCpuTensor(fn, 'attentionWeights', attentionWeights);
    // The options as read once, for the library's rules and the wasm module.
    const callOptions = { pointsPerLevel: opts.pointsPerLevel, sampling: opts.sampling };
    const yDims = rules.multiScaleDeformableAttention(V.dims, spatialShapes, levelStartIndex, S.dims, W.dims, callOptions);
    const onGpu = [V, S, W].every((t) => gpuDtypes.has(t.dtype));
    if (!onGpu) checkDtypes(fn, V, S, W);
    const inputs = [['value', V], ['samplingLocations', S], ['attentionWeights', W]];
    const out = readGpuOut(fn, opts.out, V.dtype, yDims, inputs);
    const total = yDims.reduce((a, b) => a * b, 1);
    const bytes = total * elementSize(V.dtype);
    if (!onGpu) {
      return fallback(fn, opts, out, V.dtype, yDims, async () =>
        wasm.multiScaleDeformableAttention(await onCpu(fn, 'value', V), spatialShapes, levelStartIndex, await onCpu(fn, 'samplingLocations', S), await onCpu(fn, 'attentionWeights', W), callOptions));
    }
    for (const [what, t] of [...inputs, ['the output', { bytes }]]) checkBinding(fn, what, t.bytes);
    const key = { valueHalf: V.dtype === 'float16', locHalf: S.dtype === 'float16', weightHalf: W.dtype === 'float16', discrete: sampling === 1 };
    // The levels' table is built for calls with output only (then S fits a u32); a level's points
    // are the locations' P where pointsPerLevel is not given.
    const table = total > 0 ? levelTable(count, values, listed ? null : S.dims[4]) : new Uint32Array(4);
    // Points of one (n, query, head): the locations' axes between M and the (x, y) pair.
    const points = S.dims.slice(3, -1).reduce((a, b) => a * b, 1);
    const levels = { data: table, bytes: table.byteLength };
    return compute(fn, { key: `msda:${JSON.stringify(key)}`, wgsl: () => deformableAttentionWgsl(key) }, {
      inputs: [...inputs, ['the levels\' table', levels]], out, dtype: V.dtype, dims: yDims, bytes, encoder: opts.encoder,
      invocations: Math.ceil(total / GROUP),
      params: (invocations, width) => deformableAttentionParams({
        total, invocations, width, channels: V.dims[3], heads: V.dims[2], queries: S.dims[1], s: V.dims[1], levels: count, points,
      }),
    });
  };
}
