// What the C++ library decides, asked through the binding instead of written again here: mode and padding names (ParseMode, ParsePadding) and output shapes (GridSampleOutputShape, AffineGridOutputShape, and the NCHW flow's, channels-last grid's and deformable attention's of src/kernels/api/validation.h).
import { describe, shapeString } from './messages.mjs';
import { libraryError, OUTPUT_SLOT } from './wasm_heap.mjs';
import { option, readAlign } from './plain_args.mjs';

// Names the library knows are short; a longer string is asked about as '' (unknown either way),
// so that marshalling it cannot take more than the heap a call keeps free.
const MAX_NAME = 256;
const PARSERS = { mode: 'parseMode', padding: 'parsePadding' };

/**
 * The library's code for the option `what` of `kind` ('mode' or 'padding'). A name is asked
 * about once per module; a value the library refuses is reported with the library's
 * expectation and, as every message here, what was given in JavaScript terms.
 */
function readChoice(heap, fn, what, value, kind) {
  const known = heap.names[kind];
  if (typeof value === 'string' && known.has(value)) return known.get(value);
  heap.ensureHeadroom(fn);
  const name = typeof value === 'string' && value.length <= MAX_NAME ? value : '';
  const code = heap.Module[PARSERS[kind]](name);
  if (code >= 0) {
    known.set(name, code);
    return code;
  }
  // The library says "<attribute>: expected 'a', 'b' or 'c', got '<name>'": its expectation
  // is kept, the rest is said as for every other option.
  const message = heap.Module.takeLastError();
  const expected = message.slice(message.indexOf(': ') + 2, message.lastIndexOf(', got '));
  const ErrorClass = typeof value === 'string' ? RangeError : TypeError;
  throw new ErrorClass(`${fn}: options.${what}: ${expected}, got ${describe(value)}`);
}

/** mode, paddingMode (padding_mode) and alignCorners (align_corners) of a sampling call, as the binding takes them. */
export function readSampling(heap, fn, opts) {
  const mode = readChoice(heap, fn, 'mode', opts.mode === undefined ? 'linear' : opts.mode, 'mode');
  const [paddingName, paddingValue] = option(fn, opts, 'paddingMode', 'padding_mode');
  const padding = readChoice(heap, fn, paddingName, paddingValue === undefined ? 'zeros' : paddingValue, 'padding');
  return { mode, padding, align: readAlign(fn, opts) };
}

/** GridSample's Y shape for x and grid dimensions, or the library's RangeError (ranks, last grid axis, batch, empty x). */
export function gridSampleOutputShape(heap, fn, xDims, gridDims) {
  heap.ensureHeadroom(fn);
  const code = heap.Module.gridSampleOutputShape(heap.writeInt64s(0, xDims), xDims.length,
    heap.writeInt64s(1, gridDims), gridDims.length, heap.writeInt64s(2, []));
  heap.check(fn, code);
  return heap.readInt64s(2, xDims.length);
}

/**
 * The output shape (rank 4) of a call whose library rule sizes it from X and its coordinates
 * (`query`: 'warpFlowOutputShape', 'gridSampleChannelsLastOutputShape'), tensors as readTensor
 * reads them; or the library's error, in its order and words: a dtype it refuses is a
 * TypeError, as every JS type error, anything else a RangeError.
 */
export function outputShape(heap, fn, query, X, C) {
  heap.ensureHeadroom(fn);
  const code = heap.Module[query](heap.writeInt64s(0, X.dims), X.dims.length, heap.dtypeCodes[X.dtype],
    heap.writeInt64s(1, C.dims), C.dims.length, heap.dtypeCodes[C.dtype], heap.writeInt64s(2, []));
  if (code !== 0) throw shapeQueryError(heap, fn);
  return heap.readInt64s(2, 4);
}

// The error of a shape query of shapes and dtypes that failed: a dtype the library refuses is a
// TypeError, as every JS type error, anything else a RangeError.
export function shapeQueryError(heap, fn) {
  const error = libraryError(fn, heap.Module.takeLastError());
  return / expected dtype /.test(error.message) ? new TypeError(error.message) : error;
}

/**
 * MultiScaleDeformableAttention's output shape [N, Lq, M * D] for value, samplingLocations and
 * attentionWeights as readTensor reads them and `count` levels at heap address `levels` (as
 * core/deformable_levels.mjs reads them; `listed` 1 where they end with the points per level),
 * or the library's error, in its order and words.
 */
export function deformableAttentionOutputShape(heap, fn, V, levels, count, listed, S, W) {
  heap.ensureHeadroom(fn);
  const code = heap.dtypeCodes;
  const status = heap.Module.multiScaleDeformableAttentionOutputShape(
    heap.writeInt64s(0, V.dims), V.dims.length, code[V.dtype], levels, count, listed,
    heap.writeInt64s(1, S.dims), S.dims.length, code[S.dtype],
    heap.writeInt64s(2, W.dims), W.dims.length, code[W.dtype], heap.writeInt64s(OUTPUT_SLOT, []));
  if (status !== 0) throw shapeQueryError(heap, fn);
  return heap.readInt64s(OUTPUT_SLOT, 3);
}

/** AffineGrid's grid shape for `size`, or the library's RangeError followed by the size given. */
export function affineGridOutputShape(heap, fn, size) {
  heap.ensureHeadroom(fn);
  const code = heap.Module.affineGridOutputShape(heap.writeInt64s(0, size), size.length, heap.writeInt64s(2, []));
  if (code !== 0) throw libraryError(fn, `${heap.Module.takeLastError()}: ${shapeString(size)}`);
  return heap.readInt64s(2, size.length);
}
