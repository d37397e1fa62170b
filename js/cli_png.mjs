// The CLI's files: reading an input (a file or a pipe), checking a PNG before its codec sees it, and decoding and encoding with pngjs, which only the CLI imports (the library's modules never do).
import { closeSync, fstatSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';

let PNG = null; // pngjs's codec, imported when a file is read (--help works without it)

/** A file that cannot be read, decoded or written: exit status 1. */
export class FileError extends Error {}

function systemReason(e) {
  const reasons = { ENOENT: 'no such file or directory', EACCES: 'permission denied', EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is not a directory', EPERM: 'operation not permitted', ENOSPC: 'no space left on the device',
    EROFS: 'read-only file system' };
  return reasons[e.code] || e.message;
}

// The PNG codec is the package's one dependency; a checkout without `npm install` lacks it.
export async function loadCodec() {
  try {
    ({ PNG } = (await import('pngjs')).default);
  } catch (e) {
    throw new FileError(`cannot load the PNG codec (npm package pngjs): ${e.code === 'ERR_MODULE_NOT_FOUND' ? 'it is not installed; run npm install in ' + new URL('.', import.meta.url).pathname : e.message}`);
  }
}

// The bytes of an input file: a regular file or a pipe, at most MAX_FILE bytes (a device such
// as /dev/zero would never end).
const MAX_FILE = 2 ** 31 - 1;
function readInput(path) {
  let fd;
  try {
    fd = openSync(path, 'r');
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
    if (stat.isFile()) {
      if (stat.size > MAX_FILE) throw new FileError(`cannot read ${path}: it has ${stat.size} bytes, more than the 2 GiB a PNG file may have here`);
      return readFileSync(fd);
    }
    if (!stat.isFIFO()) throw new FileError(`cannot read ${path}: it is not a regular file or a pipe`);
    const chunks = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(1 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_FILE) throw new FileError(`cannot read ${path}: it has more than the 2 GiB a PNG file may have here`);
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } catch (e) {
    if (e instanceof FileError) throw e;
    throw new FileError(`cannot read ${path}: ${systemReason(e)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

// What a file named .png most often really is, by its first bytes.
const OTHER_FORMATS = [
  ['JPEG', (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['GIF', (b) => b.toString('latin1', 0, 4) === 'GIF8'],
  ['WebP', (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP'],
];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_MAX_SIDE = 2 ** 31 - 1;
// The bit depths the PNG specification allows for each colour type (IHDR).
const BIT_DEPTHS = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
// The critical chunks of PNG; a reader must refuse a file with any other (a capital first letter).
const CRITICAL_CHUNKS = ['IHDR', 'PLTE', 'IDAT', 'IEND'];

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
// The CRC-32 of PNG chunks (ISO 3309, as zlib's).
function crc32(bytes) {
  let c = -1;
  for (let i = 0; i < bytes.length; ++i) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

// Whatever is wrong with an IHDR chunk's 13 bytes, or null.
function headerProblem(h) {
  const [width, height] = [h.readUInt32BE(0), h.readUInt32BE(4)];
  if (width === 0 || height === 0) return `its header says ${width}x${height} pixels; both sides must be at least 1`;
  if (width > PNG_MAX_SIDE || height > PNG_MAX_SIDE) return `its header says ${width}x${height} pixels; PNG allows at most ${PNG_MAX_SIDE} a side`;
  const [depth, colour, compression, filter, interlace] = h.subarray(8, 13);
  if (!BIT_DEPTHS[colour]?.includes(depth)) return `its header is invalid: bit depth ${depth} with colour type ${colour}`;
  if (compression !== 0 || filter !== 0 || interlace > 1) {
    return `its header is invalid: compression method ${compression}, filter method ${filter}, interlace method ${interlace}`;
  }
  return null;
}

/**
 * Checks a PNG file before the codec sees it, so that a bad file gets a reason of ours (the
 * codec reports its stream internals) and the decoder never allocates what a forged header
 * says: the signature, every chunk's length, type and CRC up to IEND, the IHDR fields, and
 * that the input and the output (`size`, or the input's) fit in the wasm heap as 8-bit RGBA.
 * Returns the bytes up to the end of IEND (anything after it is ignored, as browsers do).
 */
function checkPng(path, bytes, size) {
  const invalid = (reason) => new FileError(`${path} is not a valid PNG file (${reason})`);
  if (bytes.length === 0) throw invalid('the file is empty');
  const head = bytes.subarray(0, PNG_SIGNATURE.length);
  if (!head.equals(PNG_SIGNATURE.subarray(0, head.length))) {
    const other = OTHER_FORMATS.find(([, test]) => test(bytes));
    throw invalid(other ? `it is a ${other[0]} file; only PNG can be read` : 'it does not start with the PNG signature');
  }
  if (bytes.length < PNG_SIGNATURE.length) throw invalid('it is truncated: the file ends inside the PNG signature');
  let width = 0;
  let height = 0;
  let images = 0; // IDAT chunks
  for (let at = PNG_SIGNATURE.length; ;) {
    if (at + 8 > bytes.length) {
      throw invalid(`it is truncated: the file ends ${at === bytes.length ? `at byte ${at} without an IEND chunk` : `inside a chunk header at byte ${at}`}`);
    }
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) throw invalid(`it is corrupt: the chunk at byte ${at} has no valid type`);
    if (length > PNG_MAX_SIDE) throw invalid(`it is corrupt: its ${type} chunk at byte ${at} says it has ${length} bytes`);
    const end = at + 12 + length;
    if (end > bytes.length) throw invalid(`it is truncated: the file ends inside its ${type} chunk at byte ${at}`);
    if (crc32(bytes.subarray(at + 4, end - 4)) !== bytes.readUInt32BE(end - 4)) {
      throw invalid(`it is corrupt: its ${type} chunk at byte ${at} fails its CRC check`);
    }
    if (at === PNG_SIGNATURE.length) {
      if (type !== 'IHDR' || length !== 13) throw invalid('it is corrupt: it does not begin with an IHDR chunk');
      const problem = headerProblem(bytes.subarray(at + 8, at + 21));
      if (problem) throw invalid(problem);
      [width, height] = [bytes.readUInt32BE(at + 8), bytes.readUInt32BE(at + 12)];
    } else if (type === 'IHDR') {
      throw invalid(`it is corrupt: a second IHDR chunk at byte ${at}`);
    }
    if (type[0] <= 'Z' && !CRITICAL_CHUNKS.includes(type)) throw invalid(`it has a critical chunk ${type} that PNG does not define`);
    if (type === 'IDAT') images += 1;
    if (type === 'IEND') {
      if (!images) throw invalid('it has no image data (no IDAT chunk)');
      const [ow, oh] = size || [width, height];
      const total = BigInt(width) * BigInt(height) * 4n + BigInt(ow) * BigInt(oh) * 4n;
      if (total >= 2n ** 31n) {
        throw new FileError(`cannot warp ${path} (${width}x${height} pixels) to ${ow}x${oh}: as 8-bit RGBA the two images need ${total} bytes, more than the 2 GiB wasm heap can hold`);
      }
      return bytes.subarray(0, end);
    }
    at = end;
  }
}


export function readPng(path, size) {
  const bytes = checkPng(path, readInput(path), size);
  try {
    // Any colour type and bit depth comes back as 8-bit RGBA.
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  } catch (e) {
    // The chunks are whole and their CRCs match, so what the codec refuses is what they hold.
    throw new FileError(`${path} is not a valid PNG file (its image data is corrupt or incomplete)`, { cause: e });
  }
}

export function writePng(path, { width, height, data }) {
  const bytes = PNG.sync.write({ width, height, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) },
    { colorType: 6, inputColorType: 6, bitDepth: 8 });
  try {
    writeFileSync(path, bytes);
  } catch (e) {
    throw new FileError(`cannot write ${path}: ${systemReason(e)}`);
  }
}
