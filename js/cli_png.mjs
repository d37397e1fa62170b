// PNG for the CLI (cli_files.mjs): its signature, a check of every chunk before the codec sees the file, and decoding and encoding with pngjs, which only this module imports (the library's modules never do).
let PNG = null; // pngjs's codec, imported when a file is read or written (--help works without it)

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
 * says: the signature, every chunk's length, type and CRC up to IEND, and the IHDR fields.
 * Returns the size and the bytes up to the end of IEND (anything after it is ignored, as
 * browsers do); throws invalid(reason) for a bad file.
 */
function checkPng(bytes, invalid) {
  const head = bytes.subarray(0, PNG_SIGNATURE.length);
  if (!head.equals(PNG_SIGNATURE.subarray(0, head.length))) throw invalid('it does not start with the PNG signature');
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
      return { width, height, bytes: bytes.subarray(0, end) };
    }
    at = end;
  }
}


/** The CLI's PNG format (cli_files.mjs's FORMATS). */
export const PNG_FORMAT = Object.freeze({
  name: 'PNG',
  extensions: ['.png'],
  codec: 'pngjs',
  sniff: (bytes) => bytes.length >= 4 && bytes.subarray(0, 4).equals(PNG_SIGNATURE.subarray(0, 4)),
  check: checkPng,
  async load() {
    ({ PNG } = (await import('pngjs')).default);
  },
  // Any colour type and bit depth comes back as 8-bit RGBA.
  decode(bytes) {
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  },
  encode({ width, height, data }) {
    return PNG.sync.write({ width, height, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) },
      { colorType: 6, inputColorType: 6, bitDepth: 8 });
  },
});
