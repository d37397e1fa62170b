// Reads NumPy .npy arrays (format versions 1 to 3, little-endian, C order) as { type, dims, data } with onnxruntime's type names: the command line's input files.

// NumPy dtype descriptors -> [type name, typed array class].
const DESCRS = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<f2': ['float16', Uint16Array],
  '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array], '<u2': ['uint16', Uint16Array], '<i2': ['int16', Int16Array],
  '<u4': ['uint32', Uint32Array], '<i4': ['int32', Int32Array], '<i8': ['int64', BigInt64Array], '|b1': ['bool', Uint8Array],
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
  const [type, ArrayClass] = known;
  const count = dims.reduce((a, b) => a * b, 1);
  const size = count * ArrayClass.BYTES_PER_ELEMENT;
  if (bytes.length - start < size) throw fail(`it is truncated: its shape (${dims.join(', ')}) needs ${size} bytes of data, it has ${bytes.length - start}`);
  const data = new ArrayClass(count);
  new Uint8Array(data.buffer).set(bytes.subarray(start, start + size));
  return { type, dims, data: type === 'bool' ? Array.from(data, Boolean) : data };
}
