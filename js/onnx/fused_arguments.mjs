// The fused attention node's arguments at run time (onnx/session.mjs): its inputs checked against the dimensions the proof of its chain fixed (onnx/fuse_attention.mjs), the locations computed from their offsets where the fusion took their arithmetic (onnx/attention_prologue.mjs), the levels it proved, and the weights as [N, Lq, M, L, P] (a view of the same data, on the CPU or the GPU).
import { libraryRules } from '../core/api.mjs';
import { onHost } from './values.mjs';

/**
 * The sampling locations from their offsets by `steps` (a fused block's locationSteps) and their
 * `operands`, float32 tensors on the CPU, each broadcast into the offsets: `into(dims)` (a
 * float32 heap tensor of module `gs`) filled with the offsets, then the library's arithmetic on
 * it (libraryRules(gs).locationSteps, src/kernels/api/location_steps.h).
 */
export function stepLocations(gs, steps, offsets, operands, into) {
  if (!onHost(offsets) || operands.some((t) => !onHost(t))) throw new Error('the locations\' arithmetic runs on the CPU; its inputs are on the GPU');
  const acc = into(offsets.dims.map(Number));
  acc.data.set(offsets.data);
  libraryRules(gs).locationSteps(acc, steps, operands);
  return acc;
}

/** Whether a fused node can compute its locations on module `gs` (null: the module load() gives). */
export const computesLocations = (gs) => !gs || Boolean(libraryRules(gs)?.locationSteps);

// Checks tensor `t` against the roles of its axes (`roles`) and the values the proof fixed.
function checkDims(t, roles, bound, what) {
  if (t.dims.length !== roles.length) throw new Error(`${what} is ${t.dims.length}-D; the chain this node replaced takes it ${roles.length}-D`);
  roles.forEach((r, i) => {
    const d = Number(t.dims[i]);
    if (Object.hasOwn(bound, r) && bound[r] !== d) {
      throw new Error(`${what} has ${d} at axis ${i}; the chain this node replaced holds ${r} = ${bound[r]} (constants of its reshapes)`);
    }
  });
}

/**
 * gs.multiScaleDeformableAttention's arguments for fused block `block` (findAttention's) on
 * its inputs [value, samplingLocations (or their offsets), attentionWeights, ...the operands of
 * the block's locationSteps] (onnxruntime tensors on the CPU or, on WebGPU, the GPU), then the
 * call's options the proof found (pointsPerLevel and sampling for the v2 forms). The locations
 * the steps compute go into `locationsInto(dims)`, a heap tensor of module `gs` (stepLocations).
 */
export function fusedArguments(block, [value, given, attn, ...operands], gs = null, locationsInto = null) {
  checkDims(value, block.dims.value, block.bound, 'the value');
  checkDims(given, block.dims.loc, block.bound, block.locationSteps ? 'the sampling offsets' : 'the sampling locations');
  const loc = block.locationSteps ? stepLocations(gs, block.locationSteps, given, operands, locationsInto) : given;
  checkDims(attn, block.dims.attn, block.bound, 'the attention weights');
  let weights = attn;
  if (attn.dims.length === 4 && !block.options.pointsPerLevel) {
    // [N, Lq, M, L * P] holds [N, Lq, M, L, P] as it is.
    const L = block.levelStartIndex.length;
    const P = Number(loc.dims[4]);
    const [N, Lq, M, LP] = [...attn.dims].map(Number);
    if (LP !== L * P) throw new Error(`the attention weights have ${LP} at axis 3; the locations say ${L} levels of ${P} points`);
    const dims = [N, Lq, M, L, P];
    weights = onHost(attn) ? { type: attn.type, dims, data: attn.data } : { buffer: attn.gpuBuffer, dims, dtype: attn.type, location: 'gpu-buffer' };
  }
  return [value, block.spatialShapes, block.levelStartIndex, loc, weights, block.options];
}
