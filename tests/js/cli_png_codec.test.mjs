// The CLI's own PNG codec (js/cli/png_codec.mjs, issue 44) against pngjs as an independent oracle: every colour type and bit depth, palettes with tRNS, colour keys, all five filters, Adam7 and split IDAT data decode to pngjs's bytes; the encoder's files decode in pngjs to the pixels given; bad image data is a FileError of one line, never a crash.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';

import pngjs from 'pngjs';

import { FileError, readImage } from '../../js/cli/files.mjs';
import { PNG_FORMAT } from '../../js/cli/png.mjs';
import { prng } from './lib/random.mjs';

const { PNG } = pngjs;

let work;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'gridsample-png-codec-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

// --- PNG files written here from the PNG specification --------------------------------------

const CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

const crc = (bytes) => zlib.crc32(bytes);
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

// Filter `type` of one row (PNG specification, 9.2): `row` and `prior` unfiltered bytes.
function filterRow(type, row, prior, bpp) {
  return row.map((x, i) => {
    const a = i >= bpp ? row[i - bpp] : 0;
    const b = prior[i];
    const c = i >= bpp ? prior[i - bpp] : 0;
    const p = a + b - c;
    const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
    return (x - [0, a, b, (a + b) >> 1, paeth][type]) & 255;
  });
}

/**
 * A PNG of `samples` (channels a pixel, each < 2^depth), its rows filtered with every filter
 * type in turn, Adam7 or not, its zlib stream split over `pieces` IDAT chunks (one of them
 * empty) with a tEXt chunk among them; `plte`, `trns` the chunks' bytes. `raw(bytes)` may
 * change the filtered rows before they are compressed; `extra` bytes follow them.
 */
function specPng({ width, height, colour, depth, interlace = 0, samples, plte = null, trns = null, pieces = 3, raw = null, extra = [] }) {
  const channels = CHANNELS[colour];
  const bpp = Math.max(1, (channels * depth) >> 3);
  const rows = [];
  let filterType = 0;
  for (const [x0, y0, dx, dy] of interlace ? ADAM7 : [[0, 0, 1, 1]]) {
    const xs = [];
    for (let x = x0; x < width; x += dx) xs.push(x);
    if (!xs.length) continue;
    let prior = null;
    for (let y = y0; y < height; y += dy) {
      const row = new Uint8Array(Math.ceil((xs.length * channels * depth) / 8));
      xs.forEach((x, i) => {
        for (let c = 0; c < channels; ++c) {
          const v = samples[(y * width + x) * channels + c];
          const k = i * channels + c;
          if (depth === 16) [row[2 * k], row[2 * k + 1]] = [v >> 8, v & 255];
          else if (depth === 8) row[k] = v;
          else row[(k * depth) >> 3] |= v << (8 - depth - ((k * depth) & 7));
        }
      });
      prior ??= new Uint8Array(row.length);
      rows.push(Uint8Array.of(filterType, ...filterRow(filterType, row, prior, bpp)));
      filterType = (filterType + 1) % 5;
      prior = row;
    }
  }
  let data = Buffer.concat([...rows, Buffer.from(extra)]);
  if (raw) data = raw(data);
  const stream = zlib.deflateSync(data);
  const cut = Array.from({ length: pieces - 1 }, (_, k) => Math.floor(((k + 1) * stream.length) / pieces));
  const idat = [0, ...cut, stream.length].slice(1).map((end, k, ends) => chunk('IDAT', stream.subarray(k ? ends[k - 1] : 0, end)));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([depth, colour, 0, 0, interlace], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    ...(plte ? [chunk('PLTE', plte)] : []), ...(trns ? [chunk('tRNS', trns)] : []),
    idat[0], chunk('IDAT', []), chunk('tEXt', Buffer.from('Comment\0written from the specification')), ...idat.slice(1), chunk('IEND', []),
  ]);
}

// Random samples for an image, and the palette, tRNS and key its colour type may have.
function randomImage(seed, width, height, colour, depth) {
  const next = prng(seed);
  const int = (n) => Math.floor(next() * n);
  const channels = CHANNELS[colour];
  const entries = colour === 3 ? 1 + int(2 ** depth) : 0;
  const samples = Uint16Array.from({ length: width * height * channels }, () => int(colour === 3 ? entries : 2 ** depth));
  // Some pixels take the colour of the first: a colour key that matches.
  for (let p = 0; p < width * height; p += 3) for (let c = 0; c < channels; ++c) samples[p * channels + c] = samples[c];
  let plte = null;
  let trns = null;
  if (colour === 3) {
    plte = Uint8Array.from({ length: 3 * entries }, () => int(256));
    trns = Uint8Array.from({ length: int(entries + 1) }, () => int(256));
  } else if (colour === 0 || colour === 2) {
    trns = new Uint8Array(2 * channels);
    for (let c = 0; c < channels; ++c) [trns[2 * c], trns[2 * c + 1]] = [samples[c] >> 8, samples[c] & 255];
  }
  return { width, height, colour, depth, samples, plte, trns };
}

const invalid = (reason) => new FileError(`not a valid PNG file (${reason})`);
const decodeOurs = (bytes) => PNG_FORMAT.decode(PNG_FORMAT.check(bytes, invalid), invalid);

// What readImage throws for `bytes` (a FileError's message), or null when it reads them.
function readOutcome(name, bytes) {
  const path = join(work, name);
  writeFileSync(path, bytes);
  try {
    readImage(path);
    return null;
  } catch (e) {
    if (e instanceof FileError) return e.message;
    throw e;
  }
}

describe('decoding: the same bytes as pngjs', () => {
  const sizes = [[1, 1], [3, 5], [9, 7], [17, 11], [33, 4]];
  for (const colour of [0, 2, 3, 4, 6]) {
    for (const depth of DEPTHS[colour]) {
      test(`colour type ${colour}, ${depth}-bit: plain and Adam7, every filter, split IDAT${colour <= 3 ? ', tRNS' : ''}`, () => {
        for (const [k, [width, height]] of sizes.entries()) {
          const image = randomImage(100 * colour + 10 * depth + k, width, height, colour, depth);
          for (const interlace of [0, 1]) {
            for (const trns of [image.trns, null]) {
              if (colour === 3 && !trns && image.trns) continue;
              const bytes = specPng({ ...image, trns, interlace });
              const want = PNG.sync.read(bytes);
              const got = decodeOurs(bytes);
              const what = `${width}x${height}, interlace ${interlace}, tRNS ${trns ? trns.length : 'none'}`;
              assert.deepEqual([got.width, got.height], [want.width, want.height], what);
              assert.ok(Buffer.compare(Buffer.from(got.data), want.data) === 0, `${what}: the pixels differ from pngjs's`);
            }
          }
        }
      });
    }
  }

  test("pngjs's own files (its filter choice and deflate settings): 8 and 16 bits, every colour type it writes", () => {
    for (const [colorType, bitDepth] of [[0, 8], [2, 8], [4, 8], [6, 8], [0, 16], [2, 16], [4, 16], [6, 16]]) {
      const next = prng(colorType * 100 + bitDepth);
      const png = new PNG({ width: 23, height: 19 });
      for (let i = 0; i < png.data.length; ++i) png.data[i] = Math.floor(next() * 256);
      const bytes = PNG.sync.write(png, { colorType, bitDepth, inputColorType: 6, inputHasAlpha: true });
      assert.ok(Buffer.compare(Buffer.from(decodeOurs(bytes).data), PNG.sync.read(bytes).data) === 0, `colour type ${colorType}, ${bitDepth}-bit`);
    }
  });
});

describe('encoding: files pngjs reads back to the same pixels', () => {
  // Each kind of picture, and the colour type that holds it exactly in the fewest bytes.
  const kinds = [
    ['opaque grey', 0, (v) => [v[0], v[0], v[0], 255]],
    ['grey with alpha', 4, (v) => [v[0], v[0], v[0], v[3]]],
    ['opaque colour', 2, (v) => [v[0], v[1], v[2], 255]],
    ['colour with alpha', 6, (v) => v],
  ];
  for (const [what, colour, pixel] of kinds) {
    test(`${what}: 8-bit colour type ${colour}`, () => {
      for (const [width, height] of [[1, 1], [1, 9], [13, 1], [64, 33]]) {
        const next = prng(width * 1000 + height + colour);
        const data = new Uint8ClampedArray(width * height * 4);
        for (let p = 0; p < width * height; ++p) {
          const smooth = (p % width) * 3 + Math.floor(p / width) * 2;
          data.set(pixel(p % 5 ? [smooth & 255, (smooth * 7) & 255, Math.floor(next() * 256), Math.floor(next() * 256)] : [0, 255, 128, 0]), 4 * p);
        }
        const bytes = PNG_FORMAT.encode({ width, height, data });
        assert.deepEqual([bytes[24], bytes[25], bytes[28]], [8, colour, 0], `${width}x${height}: bit depth, colour type, interlace`);
        const back = PNG.sync.read(bytes);
        assert.deepEqual([back.width, back.height], [width, height]);
        assert.ok(Buffer.compare(back.data, Buffer.from(data.buffer)) === 0, `${width}x${height}: pngjs reads other pixels back`);
        assert.ok(Buffer.compare(Buffer.from(decodeOurs(bytes).data), back.data) === 0, `${width}x${height}: our decoder reads other pixels back`);
      }
    });
  }

  test('rows are filtered: a smooth 256x64 picture uses more than one filter and compresses to under a tenth', () => {
    const [width, height] = [256, 64];
    const data = new Uint8Array(width * height * 4);
    for (let p = 0; p < width * height; ++p) data.set([p % width, Math.floor(p / width) * 4, (p % width) ^ 0x55, 255 - (p % 97)], 4 * p);
    const bytes = PNG_FORMAT.encode({ width, height, data });
    const idat = Buffer.concat(chunksOf(bytes).filter((c) => c.type === 'IDAT').map((c) => c.data));
    const filters = new Set();
    const rows = zlib.inflateSync(idat);
    for (let y = 0; y < height; ++y) filters.add(rows[y * (1 + 4 * width)]);
    assert.ok(filters.size > 1 && [...filters].every((f) => f <= 4), `filters ${[...filters]}`);
    assert.ok(bytes.length < data.length / 10, `${bytes.length} bytes for ${data.length}`);
  });
});

function chunksOf(bytes) {
  const out = [];
  for (let at = 8; at < bytes.length; at += 12 + bytes.readUInt32BE(at)) {
    out.push({ type: bytes.toString('latin1', at + 4, at + 8), data: bytes.subarray(at + 8, at + 8 + bytes.readUInt32BE(at)) });
  }
  return out;
}

describe('bad image data: a FileError naming the file and the reason, never a crash', () => {
  const rgb = randomImage(7, 9, 7, 2, 8);
  const indexed = randomImage(8, 9, 7, 3, 4);
  const cases = [
    ['a row with filter type 5', specPng({ ...rgb, raw: (d) => { d[0] = 5; return d; } }), /\/bad-0\.png is not a valid PNG file \(its image data is corrupt or incomplete\)$/],
    ['image data one row short', specPng({ ...rgb, raw: (d) => d.subarray(0, d.length - 28) }), /\/bad-1\.png is not a valid PNG file \(its image data is corrupt or incomplete\)$/],
    ['image data one byte long', specPng({ ...rgb, extra: [0] }), /\/bad-2\.png is not a valid PNG file \(it is corrupt: its image data inflates to more than the 196 bytes its 9x7 header allows\)$/],
    ['a palette index past the palette', specPng({ ...indexed, plte: indexed.plte.subarray(0, 3), trns: null }), /\/bad-3\.png is not a valid PNG file \(its image data is corrupt or incomplete\)$/],
    ['colour type 3 without PLTE', specPng({ ...indexed, plte: null, trns: null }), /\/bad-4\.png is not a valid PNG file \(its colour type is 3 \(indexed colour\), but no PLTE chunk comes before its image data\)$/],
    ['a PLTE of 4 bytes', specPng({ ...indexed, plte: indexed.plte.subarray(0, 4), trns: null }), /\(it is corrupt: its PLTE chunk has 4 bytes; a palette has 1 to 256 colours of 3 bytes\)$/],
    ['more alphas than colours', specPng({ ...indexed, plte: indexed.plte.subarray(0, 3), trns: Uint8Array.of(1, 2) }), /\(it is corrupt: its tRNS chunk has 2 alphas for a palette of 1 colours\)$/],
    ['an RGB colour key of 2 bytes', specPng({ ...rgb, trns: Uint8Array.of(0, 1) }), /\(it is corrupt: its tRNS chunk has 2 bytes; colour type 2 needs 6\)$/],
  ];
  cases.forEach(([what, bytes, message], k) => {
    test(what, () => {
      assert.throws(() => PNG.sync.read(bytes), `pngjs reads ${what}`);
      assert.match(readOutcome(`bad-${k}.png`, bytes), message);
    });
  });

  test('200 files with random bytes of their image data changed (CRCs made good): each reads or is a FileError', () => {
    const next = prng(44);
    const good = specPng({ ...randomImage(9, 17, 11, 6, 16), interlace: 1, pieces: 1 });
    const at = good.indexOf('IDAT') + 4;
    const length = good.readUInt32BE(at - 8);
    let refused = 0;
    for (let k = 0; k < 200; ++k) {
      const bytes = Buffer.from(good);
      for (let n = 0; n < 1 + (k % 4); ++n) bytes[at + Math.floor(next() * length)] ^= 1 << Math.floor(next() * 8);
      bytes.writeUInt32BE(crc(bytes.subarray(at - 4, at + length)), at + length);
      const outcome = readOutcome('garbled.png', bytes);
      if (outcome) {
        assert.match(outcome, /\/garbled\.png is not a valid PNG file \([^\n]+\)$/);
        refused += 1;
      }
    }
    assert.ok(refused > 100, `${refused} of 200 refused`);
  });
});
