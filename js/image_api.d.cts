// TypeScript declarations of gridsample's interleaved images and their warps' arguments: images, matrices, points, pixel maps, warp options and results.
// A part of api.d.cts (which re-exports it; see there why a .d.cts), read as CommonJS for its extension alone.

import type { GridSample } from './load_api.cjs';
import type { createPool } from './pool_api.cjs';
import type { AlignCorners, HeapTensor, Mode, PaddingMode, ResultDataOf } from './tensor_api.cjs';

/** Pixel data of an interleaved image: 8-bit values (canvas `ImageData.data`) or float32. */
export type ImageData8 = Uint8ClampedArray | Uint8Array;
/** Pixel data of an interleaved image. */
export type ImageDataArray = ImageData8 | Float32Array;

/**
 * An interleaved (channels-last) image such as a canvas `ImageData`: `height` rows of
 * `width` pixels, each `channels` consecutive values (R, G, B, A for ImageData).
 */
export interface ImageLike<A extends ImageDataArray = ImageDataArray> {
  /** The pixels, row-major; `length` must be `width * height * channels`. */
  readonly data: A;
  /** Pixels per row. */
  readonly width: number;
  /** Rows. */
  readonly height: number;
  /**
   * Values per pixel, 1 to 4. Default: `data.length / (width * height)` (4 for ImageData;
   * 4 for an image without pixels).
   */
  readonly channels?: number;
}

/**
 * What {@link GridSample.warpAffine} returns: a plain object (wrap it in `new ImageData(...)`),
 * unless `options.out` is an image object (see {@link ImageResult}).
 */
export interface Image<A extends ImageDataArray = ImageDataArray> {
  /** The pixels: a new array of the input's class ({@link ResultDataOf}), or the array given as `options.out`. */
  readonly data: A;
  /** Pixels per row. */
  readonly width: number;
  /** Rows. */
  readonly height: number;
  /** Values per pixel (the input's). */
  readonly channels: number;
}

/**
 * An affine map of normalised coordinates, as AffineGrid's theta for one image: the 2x3
 * matrix `[a, b, c, d, e, f]` row-major, sampling the input at
 * `(a x + b y + c, d x + e y + f)` for the output pixel at normalised `(x, y)`.
 * A `Float32Array` computes as a float32 theta; an `Array` or a `Float64Array` as float64.
 */
export type Theta = readonly number[] | Float32Array | Float64Array;

/**
 * A 3x3 homography for one image, nine numbers row-major `[h0, ..., h8]`: in normalised space
 * the output point `(x, y)` samples the input at `((h0 x + h1 y + h2) / w, (h3 x + h4 y + h5) / w)`,
 * `w = h6 x + h7 y + h8`; in pixel space (OpenCV's `warpPerspective`) it maps source pixels to
 * destination pixels unless `inverse: true`. A `Float32Array` computes as float32; an `Array`
 * or a `Float64Array` as float64.
 */
export type Homography = readonly number[] | Float32Array | Float64Array;

/** A point `[x, y]` in pixels (pixel centres at integer coordinates). */
export type Point = readonly [number, number];

/** Four points, e.g. the corners of a document: top-left, top-right, bottom-right, bottom-left. */
export type Quad = readonly [Point, Point, Point, Point];

/**
 * The space a warp's matrix is written in: `normalized` (the default: AffineGrid's -1..1 per
 * axis, output to input) or `pixel` (OpenCV's: pixel centres at integer coordinates, origin at
 * the top-left pixel, source to destination unless `inverse: true`). Never guessed from the
 * values.
 */
export type Space = 'normalized' | 'pixel';

/**
 * A map of remap: float32 pixel coordinates, `width * height` values (a plane) or twice that
 * (interleaved `(x, y)`), or a float32 {@link HeapTensor} `[height, width, 1 | 2]`.
 */
export type PixelMap =
  | { readonly data: Float32Array; readonly width: number; readonly height: number; readonly channels?: 1 | 2 }
  | HeapTensor<'float32'>;

/** Options of {@link GridSample.remap}. */
export interface RemapOptions<O extends ImageOut | undefined = ImageOut | undefined> {
  /** Interpolation: `linear`/`bilinear` (default), `nearest` or `cubic`/`bicubic`. */
  mode?: Mode;
  /** Samples outside the image: `zeros` (default: transparent black), `border` or `reflection`. */
  paddingMode?: PaddingMode;
  /** The ONNX attribute spelling of `paddingMode`; give one or the other. */
  padding_mode?: PaddingMode;
  /**
   * With `paddingMode: 'zeros'` only: the colour read outside the image, per tap (OpenCV's
   * `BORDER_CONSTANT` border value; default 0): one number for every channel, or one per
   * channel (e.g. `[255, 255, 255, 255]` for opaque white RGBA). Finite; uint8 images
   * saturate the result to 0..255 as usual.
   */
  fill?: number | ArrayLike<number>;
  /** Write the result here (as for warpAffine); its size must be the maps'. */
  out?: O;
}

/** Where warpAffine writes its result instead of a new array. */
export type ImageOut = ImageDataArray | ImageLike | HeapTensor<'uint8' | 'float32'>;

/**
 * What `warpAffine` returns for an image of type `I` and an `options.out` of type `O`: without
 * `out`, a new {@link Image}; with a typed array, a new image over that array; with an image
 * object (e.g. an `ImageData`), that very object; with a heap tensor, a new image over its
 * heap view.
 */
export type ImageResult<I, O extends ImageOut | undefined = undefined> =
  O extends HeapTensor<'uint8' | 'float32'> ? Image<O['data']>
  : O extends ImageDataArray ? Image<O>
  : O extends object ? O
  // Extract: for an image, ResultDataOf is one of these; TypeScript cannot tell for a generic I.
  : Image<Extract<ResultDataOf<I>, ImageDataArray>>;

/** Options of {@link GridSample.warpAffine}; `O` is the type of `out`, which decides the result's type ({@link ImageResult}). */
export interface WarpAffineOptions<O extends ImageOut | undefined = ImageOut | undefined> {
  /** Interpolation: `linear`/`bilinear` (default), `nearest` or `cubic`/`bicubic`. */
  mode?: Mode;
  /** Samples outside the image: `zeros` (default: transparent black), `border` or `reflection`. */
  paddingMode?: PaddingMode;
  /** The ONNX attribute spelling of `paddingMode`; give one or the other. */
  padding_mode?: PaddingMode;
  /**
   * align_corners of both AffineGrid and GridSample (default false). Normalised space only:
   * with `space: 'pixel'` it is an error (pixel centres sit at integer coordinates).
   */
  alignCorners?: AlignCorners;
  /** The ONNX attribute spelling of `alignCorners`; give one or the other. */
  align_corners?: AlignCorners;
  /** The matrix's space (see {@link Space}); default `normalized`. */
  space?: Space;
  /**
   * Pixel space only: the matrix already maps output pixels to input pixels (OpenCV's
   * `WARP_INVERSE_MAP`); by default it maps source to destination and is inverted (an error
   * when it is singular or has a non-finite entry).
   */
  inverse?: boolean;
  /**
   * With `paddingMode: 'zeros'` only: the colour read outside the image, per tap (OpenCV's
   * `BORDER_CONSTANT` border value; default 0): one number for every channel, or one per
   * channel (e.g. `[255, 255, 255, 255]` for opaque white RGBA). Finite; uint8 images
   * saturate the result to 0..255 as usual.
   */
  fill?: number | ArrayLike<number>;
  /** Output width in pixels (default: `out`'s, else the input's). */
  width?: number;
  /** Output height in pixels (default: `out`'s, else the input's). */
  height?: number;
  /**
   * Only the rows `[begin, end)` of the output (`height`, or the input's height, rows high):
   * the result is `end - begin` rows high and each row is the same bytes as that row of the
   * whole output. For splitting one warp among workers ({@link createPool} does);
   * `0 <= begin <= end <= height`, integers.
   */
  rows?: readonly [number, number];
  /**
   * Write the result here: a typed array of the image's kind with `width * height * channels`
   * elements, an image object (e.g. an `ImageData`; its width and height are the output
   * size, and it is returned as is), or a {@link HeapTensor} of shape
   * `[height, width, channels]` (no copy at all; `data` of the result is its heap view).
   */
  out?: O;
}
