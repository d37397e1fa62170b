// What the C++ library decides, asked through the binding instead of written again here: mode and padding names (ParseMode, ParsePadding) and output shapes (GridSampleOutputShape, AffineGridOutputShape, and the NCHW flow's, channels-last grid's of src/kernels/api/validation.h; deformable attention's is core/deformable_block.mjs's), the coordinate tables of gridsample/webgpu's warps (src/kernels/api/warp_tables.h) and the fused attention's locations' arithmetic (src/kernels/api/location_steps.h).
import { describe, shapeString } from './messages.mjs';
import { libraryError } from './wasm_heap.mjs';
import { MAX_DIMS, option, readAlign } from './plain_args.mjs';

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

/** AffineGrid's grid shape for `size`, or the library's RangeError followed by the size given. */
export function affineGridOutputShape(heap, fn, size) {
  heap.ensureHeadroom(fn);
  const code = heap.Module.affineGridOutputShape(heap.writeInt64s(0, size), size.length, heap.writeInt64s(2, []));
  if (code !== 0) throw libraryError(fn, `${heap.Module.takeLastError()}: ${shapeString(size)}`);
  return heap.readInt64s(2, size.length);
}

// The coordinate tables of gridsample/webgpu's warp shaders by the library's WarpTable codes
// (src/kernels/api/warp_tables.h), named as js/webgpu/warp_wgsl.mjs names the shader's sources.
const WARP_TABLES = ['affine', 'points', 'perspective'];

/**
 * Which coordinate table a matrix warp's shader samples from, and its bytes, for an output of
 * `width` x `height`: for a normalised warpAffine by `theta` ({dtype, data} as readMatrix reads
 * it) under padding code `padding`, 'affine' or 'points'; for every other matrix warp (theta
 * null), 'perspective'. Allocates nothing.
 */
export function warpTableLayout(heap, theta, padding, width, height) {
  const { Module } = heap;
  const code = theta ? Module.affineWarpTable(heap.writeFloat64s(0, theta.data), heap.dtypeCodes[theta.dtype], padding)
    : WARP_TABLES.indexOf('perspective');
  return { kind: WARP_TABLES[code], bytes: 4 * Module.warpTableFloats(code, height, width) };
}

/**
 * The table `kind` (warpTableLayout's) of `matrix` (theta, six numbers, or the pixel homography
 * H, nine) for an output of `width` x `height` and alignCorners `align`: {terms, a Float32Array;
 * source, the 4 floats of the shader's uniform block}, computed in the wasm heap.
 */
export function warpTable(heap, fn, kind, matrix, width, height, align) {
  const { Module } = heap;
  const code = WARP_TABLES.indexOf(kind);
  const floats = Module.warpTableFloats(code, height, width);
  heap.checkBudget(fn, [['the coordinate table', 4 * floats]]);
  const p = floats > 0 ? heap.allocate(fn, 'the coordinate table', 4 * floats) : 0;
  try {
    const source = heap.stage(1, new Float32Array(4));
    Module.fillWarpTable(heap.writeFloat64s(2, [code, height, width, align ? 1 : 0]), heap.writeFloat64s(0, matrix), p, source);
    return {
      terms: new Float32Array(Module.HEAPU8.buffer, p, floats).slice(),
      source: Array.from(new Float32Array(Module.HEAPU8.buffer, source, 4)),
    };
  } finally {
    if (p) Module.release(p);
  }
}

// The library's codes of the locations' operators (src/kernels/api/location_steps.h LocationOp).
const LOCATION_OPS = ['Mul', 'Div', 'Add', 'Sub'];

/**
 * A fused deformable attention's locations' arithmetic (gridsample/onnx, onnx/fused_arguments.mjs):
 * `steps` ({op, first}: the operand comes first) run in order on `acc`, the address of float32s
 * of dimensions `dims` in the heap, each with its operand of `operands` (float32 tensors on the
 * CPU, copied in) broadcast into them (src/kernels/api/location_steps.h). The library's
 * RangeError, under `fn`, where an operand does not broadcast.
 */
export function locationSteps(heap, fn, acc, dims, steps, operands) {
  const { Module } = heap;
  const dimsAt = heap.writeInt64s(0, dims);
  steps.forEach((step, i) => {
    const od = [...operands[i].dims].map(Number);
    if (od.length > MAX_DIMS) throw new RangeError(`${fn}: operand ${i + 1} of the locations' arithmetic has ${od.length} dimensions, more than the offsets'`);
    if (operands[i].data.length !== od.reduce((a, b) => a * b, 1)) throw new RangeError(`${fn}: operand ${i + 1} of the locations' arithmetic holds ${operands[i].data.length} values for dimensions [${od.join(', ')}]`);
    const bytes = 4 * operands[i].data.length;
    heap.checkBudget(fn, [[`operand ${i + 1} of the locations' arithmetic`, bytes]]);
    const p = heap.allocate(fn, `operand ${i + 1} of the locations' arithmetic`, Math.max(bytes, 4));
    try {
      new Float32Array(Module.HEAPU8.buffer, p, operands[i].data.length).set(operands[i].data);
      heap.ensureHeadroom(fn);
      const args = [acc, dimsAt, dims.length, LOCATION_OPS.indexOf(step.op), step.first ? 1 : 0, p, heap.writeInt64s(1, od), od.length, i + 1];
      heap.check(fn, Module.locationStep(heap.writeFloat64s(2, args)));
    } finally {
      Module.release(p);
    }
  });
}
