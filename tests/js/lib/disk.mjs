// Shape measurements for the tests of transforms in pixel space: an anti-aliased disk and the moments (area, centroid, covariance, axis ratio) of a picture.

/** A white disk (each pixel's coverage from 8x8 samples) on opaque black, as RGBA bytes. */
export function diskImage(width, height, cx, cy, radius) {
  const data = new Uint8ClampedArray(4 * width * height);
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      let inside = 0;
      for (let k = 0; k < 64; ++k) {
        const dx = x - 0.5 + ((k & 7) + 0.5) / 8 - cx;
        const dy = y - 0.5 + ((k >> 3) + 0.5) / 8 - cy;
        if (dx * dx + dy * dy <= radius * radius) inside += 1;
      }
      const i = 4 * (y * width + x);
      data[i] = data[i + 1] = data[i + 2] = Math.round((255 * inside) / 64);
      data[i + 3] = 255;
    }
  }
  return { width, height, data };
}

/**
 * Area (in pixels of full white), centroid, second central moments and axis ratio (square root
 * of the covariance's eigenvalue ratio: 1 for a disk) of the red channel of RGBA bytes, pixel
 * (x, y) at (x, y).
 */
export function moments({ width, height, data }) {
  let mass = 0;
  let mx = 0;
  let my = 0;
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const v = data[4 * (y * width + x)];
      mass += v;
      mx += v * x;
      my += v * y;
    }
  }
  const cx = mx / mass;
  const cy = my / mass;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const v = data[4 * (y * width + x)];
      sxx += v * (x - cx) ** 2;
      syy += v * (y - cy) ** 2;
      sxy += v * (x - cx) * (y - cy);
    }
  }
  [sxx, syy, sxy] = [sxx / mass, syy / mass, sxy / mass];
  const mean = (sxx + syy) / 2;
  const spread = Math.sqrt(((sxx - syy) / 2) ** 2 + sxy * sxy);
  return { mass: mass / 255, cx, cy, sxx, syy, sxy, ratio: Math.sqrt((mean + spread) / (mean - spread)) };
}
