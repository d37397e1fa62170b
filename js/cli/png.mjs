// PNG for the CLI (cli/files.mjs): its signature, a check of every chunk before the pixels are decoded, and decoding and encoding with cli/png_codec.mjs (Node.js's own zlib: no package to install).
import { CHANNELS, crc32, decodePixels, encodePng, inflatedSize, inflateImageData, PNG_SIGNATURE } from './png_codec.mjs';

const PNG_MAX_SIDE = 2 ** 31 - 1;
// The bit depths the PNG specification allows for each colour type (IHDR).
const BIT_DEPTHS = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
// The critical chunks of PNG; a reader must refuse a file with any other (a capital first letter).
const CRITICAL_CHUNKS = ['IHDR', 'PLTE', 'IDAT', 'IEND'];
// Deflate codes at most 258 bytes in two bits (one length and one distance code of a bit
// each), so no stream inflates to more than 1032 times its size.
const DEFLATE_MAX_RATIO = 1032;

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
 * Checks a PNG file before its pixels are decoded, so that a bad file gets a reason of its
 * own and the decoder never allocates what a forged header says: the signature, every chunk's
 * length, type and CRC up to IEND, the IHDR fields, the palette and transparency chunks, and
 * that the compressed image data could inflate to what the header promises. Returns the size,
 * the header, the IDAT chunks' data and the palette and transparency (anything after IEND is
 * ignored, as browsers do); throws invalid(reason) for a bad file.
 */
function checkPng(bytes, invalid) {
  const head = bytes.subarray(0, PNG_SIGNATURE.length);
  if (!head.equals(PNG_SIGNATURE.subarray(0, head.length))) throw invalid('it does not start with the PNG signature');
  if (bytes.length < PNG_SIGNATURE.length) throw invalid('it is truncated: the file ends inside the PNG signature');
  let header = null;
  const idat = []; // the IDAT chunks' data: one zlib stream
  const colours = { PLTE: null, tRNS: null }; // a palette, transparency: their chunks' data
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
    const data = bytes.subarray(at + 8, end - 4);
    if (type === 'PLTE' || type === 'tRNS') colours[type] = colourChunk(type, data, header, colours, idat.length > 0, invalid);
    if (type === 'IDAT') {
      if (header.colour === 3 && !colours.PLTE) throw invalid('its colour type is 3 (indexed colour), but no PLTE chunk comes before its image data');
      idat.push(data);
    }
    if (type === 'IEND') {
      if (!idat.length) throw invalid('it has no image data (no IDAT chunk)');
      checkPromise(header, idat, invalid);
      return { width: header.width, height: header.height, header, idat, colours: { palette: colours.PLTE, transparency: colours.tRNS } };
    }
    at = end;
  }
}

// A header that promises more than its compressed data can hold is a truncated file or a
// forged one: the decoder would allocate, unfilter and convert every promised pixel first.
function checkPromise(header, idat, invalid) {
  const compressed = idat.reduce((sum, chunk) => sum + chunk.length, 0);
  const size = inflatedSize(header);
  if (size > DEFLATE_MAX_RATIO * compressed) {
    throw invalid(`it is truncated or corrupt: its header says ${header.width}x${header.height} pixels (${size} bytes of image data once inflated), ` +
      `more than its ${compressed} bytes of compressed image data can hold (at most ${DEFLATE_MAX_RATIO * compressed})`);
  }
}

// The data of a PLTE or tRNS chunk where the pixels use it, checked: once each, before the
// image data, a palette of 1 to 256 colours and no more alphas than it has colours, a colour
// key of one sample a channel. Elsewhere (a suggested palette, tRNS with an alpha channel)
// the chunk is ignored, as libpng does.
function colourChunk(type, data, header, colours, afterImageData, invalid) {
  const { colour } = header;
  const used = type === 'PLTE' ? colour === 3 : colour <= 3;
  if (!used) return null;
  if (colours[type] || afterImageData) throw invalid(`it is corrupt: ${colours[type] ? 'a second' : 'its'} ${type} chunk comes after ${colours[type] ? 'the first' : 'its image data'}`);
  if (type === 'PLTE') {
    if (data.length === 0 || data.length > 768 || data.length % 3) throw invalid(`it is corrupt: its PLTE chunk has ${data.length} bytes; a palette has 1 to 256 colours of 3 bytes`);
    return data;
  }
  if (colour === 3) {
    if (!colours.PLTE) throw invalid('it is corrupt: its tRNS chunk comes before its PLTE chunk');
    if (data.length > colours.PLTE.length / 3) throw invalid(`it is corrupt: its tRNS chunk has ${data.length} alphas for a palette of ${colours.PLTE.length / 3} colours`);
    return data;
  }
  const want = 2 * CHANNELS[colour];
  if (data.length !== want) throw invalid(`it is corrupt: its tRNS chunk has ${data.length} bytes; colour type ${colour} needs ${want}`);
  return data;
}

/** The CLI's PNG format (cli/files.mjs's FORMATS). */
export const PNG_FORMAT = Object.freeze({
  name: 'PNG',
  extensions: ['.png'],
  codec: null, // built in: nothing to install or load
  sniff: (bytes) => bytes.length >= 4 && bytes.subarray(0, 4).equals(PNG_SIGNATURE.subarray(0, 4)),
  check: checkPng,
  async load() {},
  // Any colour type and bit depth comes back as 8-bit RGBA. `checked` is what check returned.
  decode({ width, height, header, idat, colours }, invalid) {
    return { width, height, data: decodePixels(header, inflateImageData(header, idat, invalid), colours) };
  },
  encode: encodePng,
});
