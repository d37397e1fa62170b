// JPEG for the CLI (cli/files.mjs): its signature, a walk over its markers before the codec sees the file, and decoding and encoding with jpeg-js, which only this module imports (the library's modules never do).
import { importOptional } from '../core/optional_package.mjs';

let jpeg = null; // jpeg-js, imported when a file is read or written

// Frame types (start-of-frame markers) by the second marker byte; jpeg-js decodes the first three.
const DECODED_FRAMES = { 0xc0: 'baseline', 0xc1: 'extended sequential', 0xc2: 'progressive' };
const OTHER_FRAMES = {
  0xc3: 'lossless', 0xc5: 'differential sequential', 0xc6: 'differential progressive', 0xc7: 'differential lossless',
  0xc9: 'arithmetic-coded sequential', 0xca: 'arithmetic-coded progressive', 0xcb: 'arithmetic-coded lossless',
  0xcd: 'arithmetic-coded differential sequential', 0xce: 'arithmetic-coded differential progressive',
  0xcf: 'arithmetic-coded differential lossless',
};
const SEGMENT_NAMES = { 0xc4: 'Huffman table', 0xdb: 'quantisation table', 0xda: 'start-of-scan', 0xdd: 'restart interval', 0xfe: 'comment' };

function segmentName(marker) {
  if (marker in DECODED_FRAMES || marker in OTHER_FRAMES) return 'start-of-frame';
  if (marker >= 0xe0 && marker <= 0xef) return `APP${marker - 0xe0}`;
  return SEGMENT_NAMES[marker] ?? `0x${marker.toString(16).toUpperCase()}`;
}

// Where the entropy-coded data that starts at `at` ends: the next marker (0xFF followed by
// neither a stuffed 0 nor a restart marker), or -1 when the file ends first.
function scanEnd(bytes, at) {
  for (let k = bytes.indexOf(0xff, at); k >= 0 && k + 1 < bytes.length; k = bytes.indexOf(0xff, k + 1)) {
    const next = bytes[k + 1];
    if (next !== 0 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) return k;
  }
  return -1;
}

// The frame header (start-of-frame segment at `at`): its size, progressive or not, and its
// components' ids and sampling factors.
function readFrame(bytes, at, length, marker, invalid) {
  const count = bytes[at + 9];
  const frame = { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7), progressive: marker === 0xc2, components: [] };
  if (!frame.width || !frame.height) throw invalid(`its frame header says ${frame.width}x${frame.height} pixels; both sides must be at least 1`);
  if (![1, 3, 4].includes(count)) throw invalid(`its frame header says ${count} colour components; JPEG images have 1, 3 or 4`);
  if (length !== 8 + 3 * count) throw invalid(`it is corrupt: its start-of-frame segment at byte ${at} has ${length} bytes for ${count} components`);
  for (let k = 0; k < count; ++k) {
    const [id, sampling] = [bytes[at + 10 + 3 * k], bytes[at + 11 + 3 * k]];
    const [h, v] = [sampling >> 4, sampling & 15];
    if (h < 1 || h > 4 || v < 1 || v > 4) throw invalid(`its frame header gives component ${id} sampling factors ${h}x${v}; JPEG allows 1 to 4`);
    frame.components.push({ id, h, v, coded: false });
  }
  return frame;
}

// The 8x8 blocks a scan codes (ITU T.81 A.2): one component's own blocks, or whole MCUs of
// several.
function scanBlocks(frame, components) {
  const hMax = Math.max(...frame.components.map((c) => c.h));
  const vMax = Math.max(...frame.components.map((c) => c.v));
  if (components.length === 1) {
    const [{ h, v }] = components;
    return Math.ceil(Math.ceil((frame.width * h) / hMax) / 8) * Math.ceil(Math.ceil((frame.height * v) / vMax) / 8);
  }
  const mcus = Math.ceil(frame.width / (8 * hMax)) * Math.ceil(frame.height / (8 * vMax));
  return mcus * components.reduce((sum, c) => sum + c.h * c.v, 0);
}

/**
 * Checks a scan (start-of-scan segment at `at`, entropy-coded data to `next`) against the
 * frame: a scan that codes DC coefficients (every sequential scan; a progressive one with
 * Ss = 0) spends at least one bit on each of its blocks, so a header that promises more
 * blocks than the data has bits is truncated or forged, and jpeg-js would allocate and
 * transform every promised block first (a 600-byte file saying 16000x16000 took a minute and
 * gigabytes). Marks the components whose DC coefficients the scan codes.
 */
function checkScan(bytes, at, length, next, frame, invalid) {
  const count = length > 2 ? bytes[at + 4] : 0;
  if (count < 1 || count > 4 || length !== 6 + 2 * count) throw invalid(`it is corrupt: its start-of-scan segment at byte ${at} has ${length} bytes for ${count} components`);
  const components = [];
  for (let k = 0; k < count; ++k) {
    const id = bytes[at + 5 + 2 * k];
    const component = frame.components.find((c) => c.id === id);
    if (!component) throw invalid(`it is corrupt: its scan at byte ${at} codes component ${id}, which its frame does not have`);
    components.push(component);
  }
  if (frame.progressive && bytes[at + 5 + 2 * count] !== 0) return; // AC coefficients only: a run of empty blocks costs a few bits
  const blocks = scanBlocks(frame, components);
  const data = next - (at + 2 + length);
  if (8 * data < blocks) {
    throw invalid(`it is truncated or corrupt: its frame header says ${frame.width}x${frame.height} pixels, ${blocks} blocks of 8x8 in its scan at byte ${at}, ` +
      `which need at least ${Math.ceil(blocks / 8)} bytes (a bit a block); the scan has ${data}`);
  }
  for (const c of components) c.coded = true;
}

/**
 * Checks a JPEG file before the codec sees it, so that a bad file gets a reason of ours and the
 * decoder never allocates what a forged header says: the start-of-image marker, every
 * segment's marker and length, one frame of a type jpeg-js decodes with a size of at least
 * 1x1, scans with data enough for the frame's size (checkScan) that code every component, and
 * an end-of-image marker. Returns the size and the bytes up to the end of the image (anything
 * after it is ignored, as browsers do); throws invalid(reason) for a bad file.
 */
function checkJpeg(bytes, invalid) {
  if (bytes.length < 2 || bytes[0] !== 0xff || bytes[1] !== 0xd8) throw invalid('it does not start with the JPEG start-of-image marker');
  let frame = null;
  let scans = 0;
  for (let at = 2; ;) {
    if (at >= bytes.length) throw invalid(`it is truncated: the file ends at byte ${at} without an end-of-image marker`);
    if (bytes[at] !== 0xff) throw invalid(`it is corrupt: no marker at byte ${at}`);
    while (bytes[at + 1] === 0xff) at += 1; // fill bytes before a marker
    if (at + 1 >= bytes.length) throw invalid(`it is truncated: the file ends inside a marker at byte ${at}`);
    const marker = bytes[at + 1];
    if (marker === 0xd9) {
      if (!frame) throw invalid('it has no start-of-frame segment');
      if (!scans) throw invalid('it has no image data (no start-of-scan segment)');
      const missing = frame.components.find((c) => !c.coded);
      if (missing) throw invalid(`it is incomplete: no scan codes ${frame.progressive ? 'the DC coefficients of ' : ''}its component ${missing.id}`);
      return { width: frame.width, height: frame.height, bytes: bytes.subarray(0, at + 2) };
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) { // markers without a segment
      at += 2;
      continue;
    }
    if (marker === 0xd8 || marker === 0x00) throw invalid(`it is corrupt: an unexpected marker 0xFF${marker.toString(16).toUpperCase().padStart(2, '0')} at byte ${at}`);
    if (at + 4 > bytes.length) throw invalid(`it is truncated: the file ends inside a segment header at byte ${at}`);
    const length = bytes.readUInt16BE(at + 2);
    const name = segmentName(marker);
    if (length < 2) throw invalid(`it is corrupt: its ${name} segment at byte ${at} says it has ${length} bytes`);
    const end = at + 2 + length;
    if (end > bytes.length) throw invalid(`it is truncated: the file ends at byte ${bytes.length}, inside its ${name} segment that starts at byte ${at}`);
    if (marker in OTHER_FRAMES) throw invalid(`it is a ${OTHER_FRAMES[marker]} JPEG, which the codec (jpeg-js) does not decode; it decodes baseline and progressive JPEG`);
    if (marker in DECODED_FRAMES) {
      if (frame) throw invalid(`it is corrupt: a second start-of-frame segment at byte ${at}`);
      if (length < 8) throw invalid(`it is corrupt: its start-of-frame segment at byte ${at} has ${length} bytes`);
      frame = readFrame(bytes, at, length, marker, invalid);
    }
    if (marker === 0xda) {
      if (!frame) throw invalid(`it is corrupt: its start-of-scan segment at byte ${at} comes before any start-of-frame segment`);
      scans += 1;
      const next = scanEnd(bytes, end);
      if (next < 0) throw invalid(`it is truncated: the file ends at byte ${bytes.length}, inside the image data of its scan that starts at byte ${at}`);
      checkScan(bytes, at, length, next, frame, invalid);
      at = next;
      continue;
    }
    at = end;
  }
}

// Pixels jpeg-js may decode (its own guard against forged sizes; the wasm heap allows less).
const MAX_MEGAPIXELS = 512;

/** The CLI's JPEG format (cli/files.mjs's FORMATS). JPEG has no alpha: writing drops it. */
export const JPEG_FORMAT = Object.freeze({
  name: 'JPEG',
  extensions: ['.jpg', '.jpeg'],
  codec: 'jpeg-js',
  sniff: (bytes) => bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  check: checkJpeg,
  async load() {
    jpeg = (await importOptional('jpeg-js', 'reading or writing JPEG', () => import('jpeg-js'))).default;
  },
  // Grey, YCbCr and CMYK come back as 8-bit RGBA, opaque. (EXIF orientation is not applied.)
  decode({ bytes }) {
    const image = jpeg.decode(bytes, {
      useTArray: true, formatAsRGBA: true, tolerantDecoding: false,
      maxResolutionInMP: MAX_MEGAPIXELS, maxMemoryUsageInMB: 4096,
    });
    return { width: image.width, height: image.height, data: image.data };
  },
  encode({ width, height, data }, { quality = 90 } = {}) {
    return jpeg.encode({ width, height, data }, quality).data;
  },
});
