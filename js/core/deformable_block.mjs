// MultiScaleDeformableAttention's block in the wasm heap (DEFORMABLE_BLOCK, src/bindings/deformable_attention_bindings.cc's DeformableBlock): the inputs' dtypes and shapes and the levels written once, then the output-shape query and the call, each one crossing that passes the block's address alone.
import { shapeQueryError } from './library_rules.mjs';
import { DEFORMABLE_BLOCK } from './wasm_heap.mjs';

/**
 * Runs `body(block)` with heap.block holding the block of value, samplingLocations and
 * attentionWeights (`tensors`: [V, S, W], {dtype, dims} as readTensor reads them) and the levels
 * (`levels`: {count, values, listed} as core/deformable_levels.mjs's readLevels gives them). The
 * levels go in the room after the block when they fit, else in an allocation freed afterwards.
 */
export function withDeformableBlock(heap, fn, tensors, { count, values, listed }, body) {
  const block = heap.block;
  const room = values.byteLength <= DEFORMABLE_BLOCK.levelRoom;
  let levels = block + DEFORMABLE_BLOCK.bytes;
  if (!room) {
    heap.checkBudget(fn, [['the levels', values.byteLength]]);
    levels = heap.allocate(fn, 'the levels', values.byteLength);
  }
  try {
    const { HEAP32: i32 } = heap.Module;
    const at = (offset) => (block + offset) >> 2;
    new BigInt64Array(heap.Module.HEAPU8.buffer, levels, values.length).set(values);
    for (let i = 0; i < 3; ++i) {
      const { dtype, dims } = tensors[i];
      i32[at(DEFORMABLE_BLOCK.data) + i] = 0;
      i32[at(DEFORMABLE_BLOCK.dtype) + i] = heap.dtypeCodes[dtype];
      i32[at(DEFORMABLE_BLOCK.rank) + i] = dims.length;
      // An int64 as two halves (dims are below 2^53).
      const shape = at(DEFORMABLE_BLOCK.shape + 8 * DEFORMABLE_BLOCK.dims * i);
      for (let k = 0; k < dims.length; ++k) {
        i32[shape + 2 * k] = dims[k] | 0;
        i32[shape + 2 * k + 1] = Math.floor(dims[k] / 4294967296);
      }
    }
    i32[at(DEFORMABLE_BLOCK.levels)] = levels;
    i32[at(DEFORMABLE_BLOCK.levelCount)] = count;
    i32[at(DEFORMABLE_BLOCK.pointsListed)] = listed;
    i32[at(DEFORMABLE_BLOCK.y)] = 0;
    i32[at(DEFORMABLE_BLOCK.sampling)] = 0;
    return body(block);
  } finally {
    if (!room) heap.Module.release(levels);
  }
}

/**
 * The output shape [N, Lq, M * D] of the call `block` (withDeformableBlock's) describes, which
 * the library writes into the block, or its error, in its order and words (a dtype it refuses
 * is a TypeError, anything else a RangeError).
 */
export function deformableOutputShape(heap, fn, block) {
  heap.ensureHeadroom(fn);
  if (heap.Module.multiScaleDeformableAttentionOutputShape(block) !== 0) throw shapeQueryError(heap, fn);
  return Array.from(new BigInt64Array(heap.Module.HEAPU8.buffer, block + DEFORMABLE_BLOCK.yShape, 3), Number);
}

/**
 * Runs the call `block` describes (its output shape asked already) on the inputs at heap
 * addresses `pointers` ([value, samplingLocations, attentionWeights]) into y at `yp`, with
 * `sampling` (DeformableSampling's code); the library's status code.
 */
export function runDeformableBlock(heap, block, pointers, yp, sampling) {
  const { HEAP32: i32 } = heap.Module;
  const at = (offset) => (block + offset) >> 2;
  for (let i = 0; i < 3; ++i) i32[at(DEFORMABLE_BLOCK.data) + i] = pointers[i];
  i32[at(DEFORMABLE_BLOCK.y)] = yp;
  i32[at(DEFORMABLE_BLOCK.sampling)] = sampling;
  return heap.Module.multiScaleDeformableAttention(block);
}
