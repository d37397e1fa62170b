// Pixel-space matrices as OpenCV writes them (rotationMatrix, perspectiveTransform) and a warp's pixel homography: their arguments read here, their arithmetic the library's (gridsample/matrices.h) in the loaded module.
//
// Pixel space (DESIGN.md section 9) is OpenCV's: pixel centres at integer coordinates, the
// origin at the top-left pixel's centre, and a matrix that maps the source to the destination
// unless `inverse` says it already maps the destination (output) to the source (OpenCV's
// WARP_INVERSE_MAP). Normalised space is AffineGrid's.
import { describe } from '../core/messages.mjs';
import { libraryError } from '../core/wasm_heap.mjs';

/** The spaces a matrix may be written in; `normalized` is the default and never guessed. */
export const SPACES = ['normalized', 'pixel'];

/** The library's MatrixSpace code of a space and `inverse`. */
export function spaceCode(space, inverse) {
  return space === 'normalized' ? 0 : inverse ? 2 : 1;
}

/** How the API's messages name the option that gives a pixel-space matrix as the output-to-input map. */
export const INVERSE_OPTION = 'inverse: true';

function readNumber(fn, what, v) {
  if (typeof v !== 'number') throw new TypeError(`${fn}: ${what}: expected a number, got ${describe(v)}`);
  return v;
}

function readPoint(fn, what, p) {
  if (!Array.isArray(p) && !ArrayBuffer.isView(p)) {
    throw new TypeError(`${fn}: ${what}: expected a point [x, y], got ${describe(p)}`);
  }
  if (p.length !== 2) throw new RangeError(`${fn}: ${what}: expected a point [x, y] of 2 numbers, got ${p.length}`);
  return [readNumber(fn, `${what}[0]`, p[0]), readNumber(fn, `${what}[1]`, p[1])];
}

// Four points [[x, y] x4] as eight numbers.
function readQuad(fn, what, quad) {
  if (!Array.isArray(quad)) throw new TypeError(`${fn}: ${what}: expected 4 points [[x, y], x4], got ${describe(quad)}`);
  if (quad.length !== 4) throw new RangeError(`${fn}: ${what}: expected 4 points [[x, y], x4], got ${quad.length}`);
  return quad.flatMap((q, i) => readPoint(fn, `${what}[${i}]`, q));
}

/**
 * The matrix functions of one loaded module (`heap`, its WasmHeap): rotationMatrix and
 * perspectiveTransform (the API's, load_api.d.cts documents them) and pixelHomography.
 */
export function matrixCalls(heap) {
  const { Module } = heap;
  const check = (fn, code) => {
    if (code !== 0) throw libraryError(fn, Module.takeLastError());
  };
  return {
    /**
     * The 2x3 matrix (six numbers, row-major) that rotates by `angleDeg` degrees about `center`
     * and scales by `scale`, as `cv.getRotationMatrix2D`. A RangeError where an entry lies beyond
     * double's range.
     */
    rotationMatrix(center, angleDeg, scale = 1) {
      const fn = 'rotationMatrix';
      const [cx, cy] = readPoint(fn, 'center', center);
      heap.ensureHeadroom(fn);
      const out = heap.writeFloat64s(0, new Array(6).fill(0));
      check(fn, Module.rotationMatrix(cx, cy, readNumber(fn, 'angleDeg', angleDeg), readNumber(fn, 'scale', scale), out));
      return heap.readFloat64s(0, 6);
    },

    /**
     * The 3x3 homography (nine numbers, row-major) taking the four points `src` onto the four
     * points `dst`, as `cv.getPerspectiveTransform` (h8 = 1, or the matrix of norm 1 where h8 is 0).
     */
    perspectiveTransform(src, dst) {
      const fn = 'perspectiveTransform';
      const s = readQuad(fn, 'src', src);
      const d = readQuad(fn, 'dst', dst);
      heap.ensureHeadroom(fn);
      check(fn, Module.perspectiveTransform(heap.writeFloat64s(0, s), heap.writeFloat64s(1, d), heap.writeFloat64s(2, new Array(9).fill(0))));
      return heap.readFloat64s(2, 9);
    },

    /**
     * The homography from output pixels to input pixels (nine numbers) that the library samples
     * `h` (six or nine numbers) written in `space` (with `inverse`) by, between images of
     * `inSize` and `outSize` ([width, height]); the library's errors name h `name` and the
     * inverse option `inverseOption`.
     */
    pixelHomography(fn, name, h, space, inverse, [inW, inH], [outW, outH], align, inverseOption = INVERSE_OPTION) {
      heap.ensureHeadroom(fn);
      const m = heap.writeFloat64s(0, h);
      const out = heap.writeFloat64s(1, new Array(9).fill(0));
      const args = heap.writeFloat64s(2, [h.length / 3, spaceCode(space, inverse), inH, inW, outH, outW, align ? 1 : 0]);
      check(fn, Module.pixelHomography(m, args, out, name, inverseOption));
      return heap.readFloat64s(1, 9);
    },
  };
}
