// Reads NumPy .npy arrays (format versions 1 to 3, little-endian, C order) as { type, dims, data } with onnxruntime's type names: the command line's input files.
import { ARRAY_CLASSES, fromBytes } from '../onnx/tensor_types.mjs';

// NumPy dtype descriptors -> onnxruntime's type names.
const DESCRS = {
  '<f4': 'float32', '<f8': 'float64', '<f2': 'float16', '|u1': 'uint8', '|i1': 'int8', '<u2': 'uint16',
  '<i2': 'int16', '<u4': 'uint32', '<i4': 'int32', '<i8': 'int64', '|b1': 'bool',
};
const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** The array in a .npy file's bytes; `what` names the file in errors (RangeError, one line). */
export function readNpy(bytes, what) {
  const fail = (why) => new RangeError(`${what} is not a usable .npy file (${why})`);
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) throw fail('it does not start with \\x93NUMPY');
  const major = bytes[6];
  if (major < 1 || major > 3) throw fail(`format version ${major}.${bytes[7]} is unknown`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [lengthBytes, headerLength] = major === 1 ? [2, view.getUint16(8, true)] : [4, bytes.length >= 12 ? view.getUint32(8, true) : Infinity];
  const start = 8 + lengthBytes + headerLength;
  if (start > bytes.length) throw fail('it is truncated inside its header');
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(8 + lengthBytes, start));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) throw fail('its header lacks descr, fortran_order or shape');
  const known = DESCRS[descr] ?? DESCRS[descr.replace(/^=/, '<')];
  if (!known) throw fail(`element type '${descr}' is not one of ${Object.keys(DESCRS).join(', ')} (little-endian)`);
  if (fortran === 'True') throw fail('it is in Fortran order; save it with np.ascontiguousarray');
  const dims = shapeText.split(',').map((d) => d.trim()).filter(Boolean).map(Number);
  if (!dims.every((d) => Number.isSafeInteger(d) && d >= 0)) throw fail(`its shape (${shapeText}) is not a list of sizes`);
  const type = known;
  const size = dims.reduce((a, b) => a * b, 1) * ARRAY_CLASSES[type].BYTES_PER_ELEMENT;
  if (bytes.length - start < size) throw fail(`it is truncated: its shape (${dims.join(', ')}) needs ${size} bytes of data, it has ${bytes.length - start}`);
  return { type, dims, data: fromBytes(type, bytes.subarray(start, start + size)) };
}
