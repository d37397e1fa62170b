// The calls that make bench's Loops, First calls and Instructions tables time, made one way for all three: img2d (1x3x512x512 float32 NCHW, bilinear on a rotation's grid) and rgba8 (a 1024x1024 RGBA warpAffine); and the deformable-attention blocks that deformable_attention.mjs and the Instructions table time.
import { argumentsOf, makeCase } from '../../tests/js/lib/deformable_attention_chain.mjs';
import { DECODER_LEVELS, encoderLevels } from '../../tests/js/lib/deformable_blocks.mjs';

/** theta of the rotation by 0.3 rad and scale 0.9 every one of these calls warps by. */
export const THETA = (() => {
  const a = 0.3, s = 0.9;
  return [s * Math.cos(a), -s * Math.sin(a), 0.02, s * Math.sin(a), s * Math.cos(a), -0.03];
})();

/** img2d's inputs as plain tensors: X (1, 3, side, side) and the rotation's grid. */
export function img2dData(gs, side = 512) {
  const x = { data: Float32Array.from({ length: 3 * side * side }, (_, i) => ((i * 7919) % 1000) / 1000), shape: [1, 3, side, side] };
  const grid = gs.affineGrid({ data: Float32Array.from(THETA), shape: [1, 2, 3] }, [1, 3, side, side]);
  return { x, grid };
}

/** img2d as a frame loop calls it: heap tensors and `out`, made once; returns the call. */
export function img2dCall(gs, { side = 512, mode = 'linear' } = {}) {
  const { x, grid } = img2dData(gs, side);
  const hx = gs.tensorFrom(x);
  const hg = gs.tensorFrom(grid);
  const out = gs.tensor('float32', [1, 3, side, side]);
  return () => gs.gridSample(hx, hg, { mode, out });
}

/** rgba8: the copying API writing into one `out` array; returns the call. */
export function rgba8Call(gs, side = 1024) {
  const data = Uint8ClampedArray.from({ length: 4 * side * side }, (_, i) => (i * 7919) % 251);
  const out = new Uint8ClampedArray(4 * side * side);
  return () => gs.warpAffine({ data, width: side, height: side }, THETA, { out });
}

// 8 heads of 32 channels, 4 points per level: the sizes of Deformable DETR, DINO and RT-DETR.
const HEADS = { M: 8, D: 32, P: 4 };
const cells = (levels) => levels.reduce((s, [h, w]) => s + h * w, 0);
export const BLOCKS = [
  { name: 'decoder (80x80, 40x40, 20x20; 300 queries)', levels: DECODER_LEVELS, Lq: 300 },
  { name: 'encoder at 640x640 (80x80 ... 10x10; 8,500 queries)', levels: encoderLevels(640, 640), Lq: cells(encoderLevels(640, 640)) },
  { name: 'encoder at 800x1333 (100x167 ... 13x21; 22,223 queries)', levels: encoderLevels(800, 1333), Lq: cells(encoderLevels(800, 1333)) },
];

/** The inputs of `block` (one of BLOCKS) that every implementation is timed on (makeCase's). */
export const blockCase = (block) => makeCase({ ...HEADS, levels: block.levels, Lq: block.Lq, seed: 45, locations: [-0.05, 1.05] });

/** A call of `gs` on case `c`'s heap tensors made once (their copies are not timed), into a heap `out`. */
export function heapCall(gs, c) {
  const [value, shapes, starts, loc, weights] = argumentsOf(c);
  const [V, S, W] = [value, loc, weights].map((t) => gs.tensorFrom({ data: t.data, shape: t.dims }));
  const out = gs.tensor('float32', [c.sizes.N, c.sizes.Lq, c.sizes.M * c.sizes.D]);
  return {
    run: () => gs.multiScaleDeformableAttention(V, shapes, starts, S, W, { out }),
    output: () => out.data,
    dispose: () => [V, S, W, out].forEach((t) => t.dispose()),
  };
}
