// PNG's pixel coding for the CLI (cli/png.mjs checks the file's structure first), from the PNG specification with Node.js's own zlib: the image data's exact size, inflating no further than it, unfiltering, Adam7, conversion to 8-bit RGBA, and encoding 8-bit pixels with adaptive filters.
import { constants as bufferConstants } from 'node:buffer';
import { deflateSync, inflateSync } from 'node:zlib';

/** Samples per pixel of each colour type (IHDR). */
export const CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
// Adam7's seven passes: first column, first row, column step, row step.
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];
const IDAT_CHUNK = 1 << 20; // the largest IDAT chunk written

/** The eight bytes every PNG file starts with. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
/** The CRC-32 of PNG chunks (ISO 3309, as zlib's). */
export function crc32(bytes) {
  let c = -1;
  for (let i = 0; i < bytes.length; ++i) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

// The passes of an image as [first column, first row, column step, row step, columns, rows],
// leaving out empty ones: Adam7's seven, or one for the whole image.
function passes({ width, height, interlace }) {
  const all = interlace ? ADAM7 : [[0, 0, 1, 1]];
  return all.map(([x0, y0, dx, dy]) => [x0, y0, dx, dy, Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)])
    .filter(([, , , , w, h]) => w > 0 && h > 0);
}

const rowBytes = (w, { depth, colour }) => Math.ceil((w * CHANNELS[colour] * depth) / 8);

/**
 * The exact size of a PNG's image data once inflated, from its IHDR fields: each row of each
 * (Adam7) pass is a filter byte and its pixels' bits rounded up to whole bytes.
 */
export function inflatedSize(header) {
  return passes(header).reduce((sum, [, , , , w, h]) => sum + h * (1 + rowBytes(w, header)), 0);
}

/**
 * The image data (the IDAT chunks' bytes, one zlib stream) inflated to exactly the size its
 * header needs, never further: throws invalid(reason) for more, and zlib's error for a stream
 * that is corrupt or ends early.
 */
export function inflateImageData(header, idat, invalid) {
  const size = inflatedSize(header);
  const shape = `${header.width}x${header.height}${header.interlace ? ' interlaced' : ''}`;
  if (size > bufferConstants.MAX_LENGTH) throw invalid(`its ${shape} header needs ${size} bytes of image data, more than Node.js holds in one buffer`);
  let raw;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: size });
  } catch (e) {
    if (e.code !== 'ERR_BUFFER_TOO_LARGE') throw e; // corrupt data: reported as such by the caller
    throw invalid(`it is corrupt: its image data inflates to more than the ${size} bytes its ${shape} header allows`);
  }
  if (raw.length !== size) throw new Error(`the image data inflates to ${raw.length} bytes; the header needs ${size}`);
  return raw;
}

// What filter `type` predicts a byte from: the bytes to its left (a), above (b) and above
// left (c), 0 outside the image (PNG specification, 9.2 and 9.4).
function predict(type, a, b, c) {
  switch (type) {
    case 0: return 0;
    case 1: return a;
    case 2: return b;
    case 3: return (a + b) >> 1;
    default: {
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
  }
}

// Undoes the filter of the row at raw[at] (its filter byte, then `n` bytes) in place; `prior`
// is the offset of the previous row's bytes in the same pass, or -1 for its first row.
function unfilterRow(raw, at, n, prior, bpp) {
  const type = raw[at];
  if (type > 4) throw new Error(`a row has filter type ${type}`);
  if (type === 0) return;
  const row = at + 1;
  for (let i = 0; i < n; ++i) {
    const b = prior < 0 ? 0 : raw[prior + i];
    const a = i < bpp ? 0 : raw[row + i - bpp];
    const c = i < bpp || prior < 0 ? 0 : raw[prior + i - bpp];
    raw[row + i] += predict(type, a, b, c);
  }
}

// The 8-bit value of each sample value of a bit depth, rounded as v * 255 / (2^depth - 1).
function scaleTable(depth) {
  const max = 2 ** depth - 1;
  return Uint8Array.from({ length: max + 1 }, (_, v) => Math.floor((v * 255) / max + 0.5));
}

/**
 * A checked PNG's pixels as 8-bit RGBA: any colour type and bit depth, Adam7 or not, a palette
 * (with tRNS alphas), and a tRNS colour key (a pixel of that exact colour becomes transparent
 * black). `raw` is inflateImageData's result; throws an Error naming what is corrupt.
 */
export function decodePixels(header, raw, { palette, transparency }) {
  const { width, height, depth, colour } = header;
  const channels = CHANNELS[colour];
  const bpp = Math.max(1, (channels * depth) >> 3);
  const scale = colour === 3 ? null : scaleTable(depth);
  const key = transparency && (colour === 0 || colour === 2)
    ? Array.from({ length: channels }, (_, c) => transparency.readUInt16BE(2 * c)) : null;
  const rgba = colour === 3 ? paletteColours(palette, transparency) : null;
  const out = Buffer.alloc(width * height * 4);
  const samples = new Uint16Array(width * channels);
  const mask = (1 << depth) - 1;
  const value = depth === 16 ? (v) => Math.floor((v * 255) / 65535 + 0.5) : (v) => scale[v];
  const grey = channels < 3;
  let at = 0;
  for (const [x0, y0, dx, dy, w, h] of passes(header)) {
    const n = rowBytes(w, header);
    for (let r = 0, prior = -1; r < h; ++r, prior = at + 1, at += 1 + n) {
      unfilterRow(raw, at, n, prior, bpp);
      const row = at + 1;
      const count = w * channels;
      for (let i = 0; i < count; ++i) {
        if (depth === 8) samples[i] = raw[row + i];
        else if (depth === 16) samples[i] = (raw[row + 2 * i] << 8) | raw[row + 2 * i + 1];
        else samples[i] = (raw[row + ((i * depth) >> 3)] >> (8 - depth - ((i * depth) & 7))) & mask;
      }
      for (let x = 0, o = 4 * ((y0 + r * dy) * width + x0); x < w; ++x, o += 4 * dx) {
        const s = x * channels;
        if (rgba) {
          if (4 * samples[s] >= rgba.length) throw new Error(`a pixel has palette index ${samples[s]}; the palette has ${rgba.length / 4} colours`);
          out.set(rgba.subarray(4 * samples[s], 4 * samples[s] + 4), o);
        } else if (key && key.every((v, c) => samples[s + c] === v)) {
          out.fill(0, o, o + 4);
        } else {
          out[o] = value(samples[s]);
          out[o + 1] = value(samples[s + (grey ? 0 : 1)]);
          out[o + 2] = value(samples[s + (grey ? 0 : 2)]);
          out[o + 3] = channels === 2 || channels === 4 ? value(samples[s + channels - 1]) : 255;
        }
      }
    }
  }
  return out;
}

// A palette's colours as RGBA bytes, 4 an entry: tRNS gives the first entries' alphas.
function paletteColours(palette, transparency) {
  const rgba = new Uint8Array((palette.length / 3) * 4).fill(255);
  for (let k = 0; k < palette.length / 3; ++k) rgba.set(palette.subarray(3 * k, 3 * k + 3), 4 * k);
  for (let k = 0; k < (transparency?.length ?? 0); ++k) rgba[4 * k + 3] = transparency[k];
  return rgba;
}

/**
 * 8-bit RGBA pixels {width, height, data} as a PNG file: 8-bit grey, grey and alpha, RGB or
 * RGBA, whichever holds the pixels exactly in the fewest bytes, each row filtered with the
 * filter whose bytes sum to the least as signed values (the PNG specification's heuristic).
 */
export function encodePng({ width, height, data }) {
  const pixels = width * height;
  let opaque = true;
  let grey = true;
  for (let i = 0; i < 4 * pixels && (opaque || grey); i += 4) {
    opaque &&= data[i + 3] === 255;
    grey &&= data[i] === data[i + 1] && data[i] === data[i + 2];
  }
  const colour = (grey ? 0 : 2) + (opaque ? 0 : 4);
  const keep = { 0: [0], 2: [0, 1, 2], 4: [0, 3], 6: [0, 1, 2, 3] }[colour];
  const bpp = keep.length;
  const n = width * bpp;
  const filtered = Buffer.alloc(height * (1 + n));
  let prior = new Uint8Array(n);
  let line = new Uint8Array(n);
  const tries = Array.from({ length: 5 }, () => new Uint8Array(n));
  for (let y = 0; y < height; ++y) {
    for (let x = 0, i = 4 * y * width; x < width; ++x, i += 4) for (let c = 0; c < bpp; ++c) line[x * bpp + c] = data[i + keep[c]];
    let best = 0;
    let bestSum = Infinity;
    for (let type = 0; type < 5; ++type) {
      const f = tries[type];
      let sum = 0;
      for (let i = 0; i < n; ++i) {
        f[i] = line[i] - (i < bpp ? predict(type, 0, prior[i], 0) : predict(type, line[i - bpp], prior[i], prior[i - bpp]));
        sum += f[i] < 128 ? f[i] : 256 - f[i];
      }
      if (sum < bestSum) [best, bestSum] = [type, sum];
    }
    filtered[y * (1 + n)] = best;
    filtered.set(tries[best], y * (1 + n) + 1);
    [prior, line] = [line, prior];
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, colour, 0, 0, 0], 8);
  const compressed = deflateSync(filtered);
  const idat = [];
  for (let at = 0; at < compressed.length || at === 0; at += IDAT_CHUNK) idat.push(chunk('IDAT', compressed.subarray(at, at + IDAT_CHUNK)));
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), ...idat, chunk('IEND', Buffer.alloc(0))]);
}

// A chunk: its length, type, data and CRC.
function chunk(type, data) {
  const bytes = Buffer.alloc(12 + data.length);
  bytes.writeUInt32BE(data.length, 0);
  bytes.write(type, 4, 'latin1');
  bytes.set(data, 8);
  bytes.writeUInt32BE(crc32(bytes.subarray(4, 8 + data.length)), 8 + data.length);
  return bytes;
}
