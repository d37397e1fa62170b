// The axis line of DESIGN.md section 2 for the image helpers: a pixel position and a normalised coordinate along a side of `size` pixels, both ways, and AffineGrid's base coordinate (the library's own is src/kernels/rules/affine_base.h; the WGSL mirror is webgpu/wgsl_rules.mjs).
//
// Pixel centres sit at integer positions u = 0 .. S - 1. alignCorners 0 puts the side's edges
// at -1 and 1 (g = (2u + 1) / S - 1); alignCorners 1 puts the outer pixels' centres there
// (g = 2u / (S - 1) - 1), and a 1-pixel side then has every coordinate at pixel 0.

/** [slope, offset] from pixel position to normalised coordinate: g = u * slope + offset ([0, 0] for a 1-pixel side with alignCorners). */
export function normalizedLine(size, alignCorners) {
  if (alignCorners) return size > 1 ? [2 / (size - 1), -1] : [0, 0];
  return [2 / size, 1 / size - 1];
}

/** [slope, offset] from normalised coordinate to pixel position: u = g * slope + offset. */
export function pixelLine(size, alignCorners) {
  return [(alignCorners ? size - 1 : size) / 2, (size - 1) / 2];
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

/** PyTorch's affine_grid base coordinate of pixel i on an axis of size n, (2i - (n - 1)) / (n - 1 or n), 0 for n = 1: in float64 as the library's. */
export function affineBaseCoordinate(i, n, alignCorners) {
  if (n === 1) return 0;
  return (2 * i - (n - 1)) / (alignCorners ? n - 1 : n);
}
