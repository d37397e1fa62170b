// PNG for the CLI (cli/files.mjs): its signature, a check of every chunk before the codec sees the file, and decoding and encoding with pngjs, which only this module imports (the library's modules never do).
import { inflateSync } from 'node:zlib';

import { importOptional } from '../core/optional_package.mjs';

let PNG = null; // pngjs's codec, imported when a file is read or written (--help works without it)

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_MAX_SIDE = 2 ** 31 - 1;
// The bit depths the PNG specification allows for each colour type (IHDR).
const BIT_DEPTHS = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
// The critical chunks of PNG; a reader must refuse a file with any other (a capital first letter).
const CRITICAL_CHUNKS = ['IHDR', 'PLTE', 'IDAT', 'IEND'];
// Samples per pixel of each colour type (IHDR).
const CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
// Adam7's seven passes: first column, first row, column step, row step.
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];
// Deflate codes at most 258 bytes in two bits (one length and one distance code of a bit
// each), so no stream inflates to more than 1032 times its size.
const DEFLATE_MAX_RATIO = 1032;

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
 * The exact size of a PNG's image data once inflated, from its IHDR fields: each row of each
 * (Adam7) pass is a filter byte and its pixels' bits rounded up to whole bytes.
 */
function inflatedSize({ width, height, depth, colour, interlace }) {
  const bits = CHANNELS[colour] * depth;
  const rows = (w, h) => (w > 0 && h > 0 ? h * (1 + Math.ceil((w * bits) / 8)) : 0);
  if (!interlace) return rows(width, height);
  return ADAM7.reduce((sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)), 0);
}

/**
 * Checks a PNG file before the codec sees it, so that a bad file gets a reason of ours (the
 * codec reports its stream internals) and the decoder never allocates what a forged header
 * says: the signature, every chunk's length, type and CRC up to IEND, the IHDR fields, and
 * that the compressed image data could inflate to what the header promises. Returns the
 * size, the header, the IDAT chunks' data and the bytes up to the end of IEND (anything after
 * it is ignored, as browsers do); throws invalid(reason) for a bad file.
 */
function checkPng(bytes, invalid) {
  const head = bytes.subarray(0, PNG_SIGNATURE.length);
  if (!head.equals(PNG_SIGNATURE.subarray(0, head.length))) throw invalid('it does not start with the PNG signature');
  if (bytes.length < PNG_SIGNATURE.length) throw invalid('it is truncated: the file ends inside the PNG signature');
  let header = null;
  const idat = []; // the IDAT chunks' data: one zlib stream
  for (let at = PNG_SIGNATURE.length; ;) {
    if (at + 8 > bytes.length) {
      throw invalid(`it is truncated: the file ends ${at === bytes.length ? `at byte ${at} without an IEND chunk` : `inside a chunk header at byte ${at}`}`);
    }
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) throw invalid(`it is corrupt: the chunk at byte ${at} has no valid type`);
    if (length > PNG_MAX_SIDE) throw invalid(`it is corrupt: its ${type} chunk at byte ${at} says it has ${length} bytes`);
    const end = at + 12 + length;
    if (end > bytes.length) throw invalid(`it is truncated: the file ends at byte ${bytes.length}, inside its ${type} chunk that starts at byte ${at}`);
    if (crc32(bytes.subarray(at + 4, end - 4)) !== bytes.readUInt32BE(end - 4)) {
      throw invalid(`it is corrupt: its ${type} chunk at byte ${at} fails its CRC check`);
    }
    if (at === PNG_SIGNATURE.length) {
      if (type !== 'IHDR' || length !== 13) throw invalid('it is corrupt: it does not begin with an IHDR chunk');
      const problem = headerProblem(bytes.subarray(at + 8, at + 21));
      if (problem) throw invalid(problem);
      header = { width: bytes.readUInt32BE(at + 8), height: bytes.readUInt32BE(at + 12), depth: bytes[at + 16],
        colour: bytes[at + 17], interlace: bytes[at + 20] };
    } else if (type === 'IHDR') {
      throw invalid(`it is corrupt: a second IHDR chunk at byte ${at}`);
    }
    if (type[0] <= 'Z' && !CRITICAL_CHUNKS.includes(type)) throw invalid(`it has a critical chunk ${type} that PNG does not define`);
    if (type === 'IDAT') idat.push(bytes.subarray(at + 8, end - 4));
    if (type === 'IEND') {
      if (!idat.length) throw invalid('it has no image data (no IDAT chunk)');
      checkPromise(header, idat, invalid);
      return { width: header.width, height: header.height, header, idat, bytes: bytes.subarray(0, end) };
    }
    at = end;
  }
}

// A header that promises more than its compressed data can hold is a truncated file or a
// forged one: the codec would allocate, unfilter and convert every promised pixel first.
function checkPromise(header, idat, invalid) {
  const compressed = idat.reduce((sum, chunk) => sum + chunk.length, 0);
  const size = inflatedSize(header);
  if (size > DEFLATE_MAX_RATIO * compressed) {
    throw invalid(`it is truncated or corrupt: its header says ${header.width}x${header.height} pixels (${size} bytes of image data once inflated), ` +
      `more than its ${compressed} bytes of compressed image data can hold (at most ${DEFLATE_MAX_RATIO * compressed})`);
  }
}

// pngjs stops inflating a plain image at the size its header gives, but inflates an
// interlaced one with no limit: inflate that here first, stopping at its exact size.
function checkInterlacedData({ header, idat }, invalid) {
  const size = inflatedSize(header);
  try {
    inflateSync(Buffer.concat(idat), { maxOutputLength: size });
  } catch (e) {
    if (e.code !== 'ERR_BUFFER_TOO_LARGE') throw e; // corrupt data: the codec's error, reported as such
    throw invalid(`it is corrupt: its image data inflates to more than the ${size} bytes its ${header.width}x${header.height} interlaced header allows`);
  }
}

/** The CLI's PNG format (cli/files.mjs's FORMATS). */
export const PNG_FORMAT = Object.freeze({
  name: 'PNG',
  extensions: ['.png'],
  codec: 'pngjs',
  sniff: (bytes) => bytes.length >= 4 && bytes.subarray(0, 4).equals(PNG_SIGNATURE.subarray(0, 4)),
  check: checkPng,
  async load() {
    ({ PNG } = (await importOptional('pngjs', 'reading or writing PNG', () => import('pngjs'))).default);
  },
  // Any colour type and bit depth comes back as 8-bit RGBA. `checked` is what check returned.
  decode(checked, invalid) {
    if (checked.header.interlace) checkInterlacedData(checked, invalid);
    const png = PNG.sync.read(checked.bytes);
    return { width: png.width, height: png.height, data: png.data };
  },
  encode({ width, height, data }) {
    return PNG.sync.write({ width, height, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) },
      { colorType: 6, inputColorType: 6, bitDepth: 8 });
  },
});
