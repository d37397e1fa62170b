// The slope of DESIGN.md section 2's axis line for the image helpers' geometry (pixel_space.mjs, flows.mjs): normalised units per pixel along a side, which keeps a rotation or a swirl round on a picture that is not square. The library's own line is src/kernels/rules/axis_line.h; the WGSL mirror is webgpu/wgsl_rules.mjs.
//
// Pixel centres sit at integer positions u = 0 .. S - 1. alignCorners 0 puts the side's edges
// at -1 and 1 (g = (2u + 1) / S - 1); alignCorners 1 puts the outer pixels' centres there
// (g = 2u / (S - 1) - 1), and a 1-pixel side then has every coordinate at pixel 0.

/** [slope, offset] from pixel position to normalised coordinate: g = u * slope + offset ([0, 0] for a 1-pixel side with alignCorners). */
export function normalizedLine(size, alignCorners) {
  if (alignCorners) return size > 1 ? [2 / (size - 1), -1] : [0, 0];
  return [2 / size, 1 / size - 1];
}

/**
 * The normalised coordinate per pixel along a side of `size` pixels: normalizedLine's slope.
 * A 1-pixel side with alignCorners has none (pixel 0 whatever the coordinate): any finite
 * value works there, and 2 keeps the conversion invertible.
 */
export function unitsPerPixel(size, alignCorners) {
  const [slope] = normalizedLine(size, alignCorners);
  return slope !== 0 ? slope : 2;
}
