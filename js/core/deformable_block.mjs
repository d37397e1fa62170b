// MultiScaleDeformableAttention's block in the wasm heap (DEFORMABLE_BLOCK, src/bindings/deformable_attention_bindings.cc's DeformableBlock): the output-shape query (asked again only when the shapes or levels change) and the call, each one crossing that passes the block's address alone.
import { shapeQueryError } from './library_rules.mjs';
import { sameShape } from './messages.mjs';
import { DEFORMABLE_BLOCK } from './wasm_heap.mjs';

/**
 * Runs `body(call)` for value, samplingLocations and attentionWeights (`tensors`: [V, S, W],
 * {dtype, dims} as readTensor reads them) and the levels (`levels`: {count, values, listed} as
 * core/deformable_levels.mjs's readLevels gives them), `call` being {outputShape(), run(pointers,
 * yp, sampling)}: outputShape() returns the library's output shape [N, Lq, M * D] or throws its
 * error, in its order and words (a dtype it refuses is a TypeError, anything else a RangeError);
 * run() then runs the call on the inputs at heap addresses `pointers` ([value,
 * samplingLocations, attentionWeights]) into y at `yp`, with `sampling` (DeformableSampling's
 * code), and returns the library's status code. Each writes the whole block at heap.block and
 * the levels first: code that runs between them (a getter of options.out) may have made
 * another call that rewrote both. The levels go in the room after the block when they fit, else
 * in an allocation freed afterwards.
 */
export function withDeformableBlock(heap, fn, tensors, levels, body) {
  const fits = levels.values.byteLength <= DEFORMABLE_BLOCK.levelRoom;
  if (!fits) heap.checkBudget(fn, [['the levels', levels.values.byteLength]]);
  const levelsAt = fits ? heap.block + DEFORMABLE_BLOCK.bytes : heap.allocate(fn, 'the levels', levels.values.byteLength);
  const state = { heap, tensors, levels, levelsAt, yDims: [] };
  try {
    return body({
      outputShape() {
        heap.ensureHeadroom(fn);
        const last = LAST_QUERY.get(heap);
        if (last && sameQuery(last, tensors, levels)) return (state.yDims = last.yDims.slice());
        if (heap.Module.multiScaleDeformableAttentionOutputShape(writeBlock(state, [0, 0, 0], 0, 0)) !== 0) throw shapeQueryError(heap, fn);
        state.yDims = Array.from(new BigInt64Array(heap.Module.HEAPU8.buffer, heap.block + DEFORMABLE_BLOCK.yShape, 3), Number);
        LAST_QUERY.set(heap, {
          tensors: tensors.map(({ dtype, dims }) => ({ dtype, dims: Array.from(dims) })),
          levels: { count: levels.count, listed: levels.listed, values: levels.values.slice() },
          yDims: state.yDims.slice(),
        });
        return state.yDims;
      },
      run: (pointers, yp, sampling) => heap.Module.multiScaleDeformableAttention(writeBlock(state, pointers, yp, sampling)),
    });
  } finally {
    if (!fits) heap.Module.release(levelsAt);
  }
}

// Per heap: the inputs' dtypes and dims and the levels of the last output-shape query the
// library answered, and its answer. A call on the same ones takes that answer without asking
// (a steady call crosses once: the call itself validates them again).
const LAST_QUERY = new WeakMap();

// Whether `tensors` and `levels` are those of query `last` (LAST_QUERY's entry).
function sameQuery(last, tensors, levels) {
  const { count, listed, values } = last.levels;
  if (count !== levels.count || listed !== levels.listed || !sameShape(values, levels.values)) return false;
  for (let i = 0; i < 3; ++i) {
    if (last.tensors[i].dtype !== tensors[i].dtype || !sameShape(last.tensors[i].dims, tensors[i].dims)) return false;
  }
  return true;
}

// Writes the block at heap.block (and its levels at `levelsAt`) for the inputs' data at
// `pointers` and y at `yp` of the output shape last asked (none before), with `sampling`;
// returns its address. Through the heap's int32 view, an int64 as two halves (dims are below
// 2^53), as core/prepared.mjs writes its call blocks.
function writeBlock({ heap, tensors, levels, levelsAt, yDims }, pointers, yp, sampling) {
  const { HEAP32: i32, HEAPU8: u8 } = heap.Module;
  const block = heap.block;
  const at = (offset) => (block + offset) >> 2;
  const int64s = (offset, values) => {
    for (let k = 0; k < values.length; ++k) {
      i32[at(offset) + 2 * k] = values[k] | 0;
      i32[at(offset) + 2 * k + 1] = Math.floor(values[k] / 4294967296);
    }
  };
  new BigInt64Array(u8.buffer, levelsAt, levels.values.length).set(levels.values);
  for (let i = 0; i < 3; ++i) {
    const { dtype, dims } = tensors[i];
    i32[at(DEFORMABLE_BLOCK.data) + i] = pointers[i];
    i32[at(DEFORMABLE_BLOCK.dtype) + i] = heap.dtypeCodes[dtype];
    i32[at(DEFORMABLE_BLOCK.rank) + i] = dims.length;
    int64s(DEFORMABLE_BLOCK.shape + 8 * DEFORMABLE_BLOCK.dims * i, dims);
  }
  i32[at(DEFORMABLE_BLOCK.levels)] = levelsAt;
  i32[at(DEFORMABLE_BLOCK.levelCount)] = levels.count;
  i32[at(DEFORMABLE_BLOCK.pointsListed)] = levels.listed;
  i32[at(DEFORMABLE_BLOCK.y)] = yp;
  i32[at(DEFORMABLE_BLOCK.sampling)] = sampling;
  int64s(DEFORMABLE_BLOCK.yShape, yDims);
  return block;
}
