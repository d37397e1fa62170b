// The calls that make bench's Loops, First calls and Instructions tables time, made one way for all three: img2d (1x3x512x512 float32 NCHW, bilinear on a rotation's grid) and rgba8 (a 1024x1024 RGBA warpAffine).

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
