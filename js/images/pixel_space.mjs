// Rotation, scale, shear and translation written in pixels about the image centre, converted to AffineGrid's θ so that non-square pictures do not stretch (used by the CLI and the demo).
//
// θ maps normalised output coordinates to normalised input coordinates, -1..1 across each
// side. A rotation written straight into θ therefore turns a W×H picture as if it were square
// and stretches it (a disk on 320×200 comes out as an ellipse with axes 1.6 : 1). Here the
// map is written in pixels instead and conjugated by the normalisation of each image:
//
//   θ = N_in · A · N_out⁻¹,   N: pixel offset from the image centre -> normalised coordinate
//
// where A is the *sampling* map (output -> input, the direction of θ itself), in pixels
// measured from each image's centre. Pixel centres sit at integer coordinates (OpenCV's
// convention) and the centre of a side of S pixels is (S - 1) / 2, which both normalisations
// of DESIGN.md §2 send to 0:
//   align_corners = 0:  g = u · 2 / S        (the image's edges at ±1)
//   align_corners = 1:  g = u · 2 / (S - 1)  (the centres of the outer pixels at ±1)
// so a map in pixels gives the same picture with either alignCorners (reflection padding
// aside, which reflects about different lines).
//
// The slider / command-line parameters describe A as the window the output samples, like θ:
//   A = [Rotate(rotate) · Shear(shear) · Scale(scaleX, scaleY) | (tx, ty)]
// so scale 0.5 zooms in 2×, rotate +30 turns the picture 30° counter-clockwise on screen (as
// OpenCV's getRotationMatrix2D with a positive angle does), and translate (10, 0) moves the
// window 10 pixels right: the picture moves 10 pixels left.
//
// This is not the pixel-space API of DESIGN.md §9 (OpenCV matrices from source to
// destination, origin at the top-left pixel); that API can build on thetaFromPixelMap.

import { unitsPerPixel } from './axis_line.mjs';

/**
 * cos and sin of an angle in degrees, exact at multiples of 90° (a quarter turn is then a
 * pure permutation of pixels where the centre allows it). The angle is reduced modulo 360
 * first, which `%` does exactly: radians of a huge angle would lose every digit (1e20°) or
 * overflow to Infinity (beyond 5e305°) and give NaN.
 */
export function cosSin(degrees) {
  const turn = degrees % 360;
  const d = (turn + 360) % 360;
  if (d === 0) return [1, 0];
  if (d === 90) return [0, 1];
  if (d === 180) return [-1, 0];
  if (d === 270) return [0, -1];
  const r = (turn * Math.PI) / 180;
  return [Math.cos(r), Math.sin(r)];
}

/**
 * [Rotate(rotate) · Shear(shear) · diag(scaleX, scaleY) | (tx, ty)] as six numbers, row-major
 * [[a, b, c], [d, e, f]]: `rotate` in degrees (x right, y down, so +90 takes (1, 0) to
 * (0, 1)), `shear` of x along y. The caller chooses the units (pixels, or θ's own).
 */
export function affineFromParams({ rotate = 0, scaleX = 1, scaleY = 1, shear = 0, tx = 0, ty = 0 } = {}) {
  const [cos, sin] = cosSin(rotate);
  return [cos * scaleX, (cos * shear - sin) * scaleY, tx, sin * scaleX, (sin * shear + cos) * scaleY, ty];
}

/**
 * The parameters of an affine map (inverse of affineFromParams): a QR split of the 2×2 part
 * into a rotation and an upper-triangular factor. scaleY < 0 means a mirror image.
 */
export function paramsFromAffine([a, b, c, d, e, f]) {
  const scaleX = Math.hypot(a, d);
  const r = scaleX > 0 ? Math.atan2(d, a) : 0;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  const u12 = cos * b + sin * e;
  const scaleY = -sin * b + cos * e;
  return { rotate: (r * 180) / Math.PI, scaleX, scaleY, shear: scaleY !== 0 ? u12 / scaleY : 0, tx: c, ty: f };
}

/**
 * θ (six numbers, AffineGrid's 2×3, row-major) of the sampling map `map` = [a, b, c, d, e, f]:
 * the output pixel at offset (u, v) from the output's centre samples the input at offset
 * (a u + b v + c, d u + e v + f) from the input's centre. Sizes are [width, height].
 */
export function thetaFromPixelMap([a, b, c, d, e, f], [inWidth, inHeight], [outWidth, outHeight], alignCorners = false) {
  const ix = unitsPerPixel(inWidth, alignCorners);
  const iy = unitsPerPixel(inHeight, alignCorners);
  const ox = unitsPerPixel(outWidth, alignCorners);
  const oy = unitsPerPixel(outHeight, alignCorners);
  // Ratios first: between sides of the same length they are exactly 1, and θ is the map itself.
  return [a * (ix / ox), b * (ix / oy), c * ix, d * (iy / ox), e * (iy / oy), f * iy];
}

/** The sampling map in pixels of a θ (inverse of thetaFromPixelMap). */
export function pixelMapFromTheta([a, b, c, d, e, f], [inWidth, inHeight], [outWidth, outHeight], alignCorners = false) {
  const ix = unitsPerPixel(inWidth, alignCorners);
  const iy = unitsPerPixel(inHeight, alignCorners);
  const ox = unitsPerPixel(outWidth, alignCorners);
  const oy = unitsPerPixel(outHeight, alignCorners);
  return [a * (ox / ix), b * (oy / ix), c / ix, d * (ox / iy), e * (oy / iy), f / iy];
}

/**
 * θ for a picture of [width, height] warped by the parameters in pixels about its centre
 * (rotate in degrees, tx and ty in pixels), into a frame of the same size. An output of
 * another size is that frame resized (edges to edges, or outer pixel centres to each other
 * with alignCorners), as AffineGrid resizes.
 */
export function thetaFromParams(params, size, alignCorners = false) {
  return thetaFromPixelMap(affineFromParams(params), size, size, alignCorners);
}

/** The parameters in pixels of a θ for a picture of [width, height] (inverse of thetaFromParams). */
export function paramsFromTheta(theta, size, alignCorners = false) {
  return paramsFromAffine(pixelMapFromTheta(theta, size, size, alignCorners));
}
