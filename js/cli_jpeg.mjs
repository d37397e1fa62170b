// JPEG for the CLI (cli_files.mjs): its signature, a walk over its markers before the codec sees the file, and decoding and encoding with jpeg-js, which only this module imports (the library's modules never do).
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

/**
 * Checks a JPEG file before the codec sees it, so that a bad file gets a reason of ours and the
 * decoder never allocates what a forged header says: the start-of-image marker, every
 * segment's marker and length, one frame of a type jpeg-js decodes with a size of at least
 * 1x1, a scan, and an end-of-image marker. Returns the size and the bytes up to the end of the
 * image (anything after it is ignored, as browsers do); throws invalid(reason) for a bad file.
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
    if (end > bytes.length) throw invalid(`it is truncated: the file ends inside its ${name} segment at byte ${at}`);
    if (marker in OTHER_FRAMES) throw invalid(`it is a ${OTHER_FRAMES[marker]} JPEG, which the codec (jpeg-js) does not decode; it decodes baseline and progressive JPEG`);
    if (marker in DECODED_FRAMES) {
      if (frame) throw invalid(`it is corrupt: a second start-of-frame segment at byte ${at}`);
      if (length < 8) throw invalid(`it is corrupt: its start-of-frame segment at byte ${at} has ${length} bytes`);
      frame = { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7), components: bytes[at + 9] };
      if (!frame.width || !frame.height) throw invalid(`its frame header says ${frame.width}x${frame.height} pixels; both sides must be at least 1`);
      if (![1, 3, 4].includes(frame.components)) throw invalid(`its frame header says ${frame.components} colour components; JPEG images have 1, 3 or 4`);
    }
    if (marker === 0xda) {
      if (!frame) throw invalid(`it is corrupt: its start-of-scan segment at byte ${at} comes before any start-of-frame segment`);
      scans += 1;
      const next = scanEnd(bytes, end);
      if (next < 0) throw invalid(`it is truncated: the file ends inside the image data of its scan at byte ${at}`);
      at = next;
      continue;
    }
    at = end;
  }
}

// Pixels jpeg-js may decode (its own guard against forged sizes; the wasm heap allows less).
const MAX_MEGAPIXELS = 512;

/** The CLI's JPEG format (cli_files.mjs's FORMATS). JPEG has no alpha: writing drops it. */
export const JPEG_FORMAT = Object.freeze({
  name: 'JPEG',
  extensions: ['.jpg', '.jpeg'],
  codec: 'jpeg-js',
  sniff: (bytes) => bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  check: checkJpeg,
  async load() {
    jpeg = (await import('jpeg-js')).default;
  },
  // Grey, YCbCr and CMYK come back as 8-bit RGBA, opaque. (EXIF orientation is not applied.)
  decode(bytes) {
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
