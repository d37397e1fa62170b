// GridSample's normalised coordinate of a pixel position, for the tests that build the grid of a pixel-space map by hand.

// The normalised coordinate (align_corners 0, or 1 with `align`) of pixel position u on a side
// of `size`. Reflection repeats every period (2 size pixels about -0.5, or 2 (size - 1) about
// 0), so a far position is first moved by whole periods, exactly (JavaScript's % on doubles):
// a float32 grid value of about 1e30 / size keeps no digit of its place in the period.
export function normalised(u, size, paddingMode, align = false) {
  const period = align ? 2 * (size - 1) : 2 * size;
  const centre = align ? 0 : 0.5;
  if (paddingMode === 'reflection' && period > 0 && Math.abs(u) > 1e6) u = ((u + centre) % period) - centre;
  return align ? (2 * u) / (size - 1) - 1 : (2 * u + 1) / size - 1;
}
