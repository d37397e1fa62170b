#!/usr/bin/env node
// The gridsample command line (`npx gridsample warp IN.png OUT.png ...`): warps a PNG with the package's affineGrid and gridSample; `gridsample onnx ...` is in cli_onnx.mjs.
import { closeSync, fstatSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import process from 'node:process';

import { load } from './node.mjs';
import { FLOW_NAMES, flowGrid } from './flows.mjs';
import { thetaFromParams } from './pixel_space.mjs';

let PNG = null; // pngjs's codec, imported when a file is read (--help works without it)
const VERSION = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version;

const HELP = `Usage: gridsample warp IN.png OUT.png [options]
       gridsample onnx inspect|bench MODEL.onnx [options]   (see gridsample onnx --help)
       gridsample --help | --version

Warps a PNG with ONNX AffineGrid + GridSample (gridsample's WebAssembly build) and writes
an 8-bit RGBA PNG. PNG is the only format so far: OUT must end in .png (any case); IN is
read as PNG whatever its name.

The transform moves the window each output pixel samples, in the input's pixels about its
centre (x right, y down; pixel centres at whole numbers, the centre at ((W-1)/2, (H-1)/2)):
  source = centre + Rotate(rotate) · Shear(shear) · Scale(sx, sy) · (output - centre) + (tx, ty)
so --scale 0.5 zooms in 2x, --rotate 30 turns the picture 30° counter-clockwise (as OpenCV's
getRotationMatrix2D with +30), --translate 10,0 moves the picture 10 pixels left, and shapes
keep their proportions whatever the aspect ratio. It becomes AffineGrid's θ (-1..1 across each
side) for the input's size and --align-corners; --size then resizes that frame to WxH.

Transform:
  --rotate DEG              rotation in degrees about the centre (default 0)
  --scale S | SX,SY         scale of the sampled window (default 1)
  --shear K                 shear of x along y (default 0)
  --translate TX,TY         shift of the sampled window in pixels (default 0,0)
  --theta A,B,C,D,E,F       θ itself, row-major, in normalised coordinates, as AffineGrid
                            takes it (instead of the four above; not converted)
  --flow swirl|lens|wave    a non-affine flow field, applied to the output grid before θ
  --strength S              strength of --flow, -1..1 (default 0.6; lens: + barrel,
                            - pincushion; swirl: the sign sets the direction)

Sampling (the GridSample attributes):
  --mode bilinear|nearest|bicubic      default bilinear ('linear', 'cubic' also accepted)
  --padding zeros|border|reflection    default zeros (transparent outside the image)
  --align-corners                      align_corners = 1 (default 0)
  --size WxH                           output size in pixels (default: the input's)

  -h, --help                this text
  -v, --version             the version

Exit status: 0 done, 1 a file could not be read, decoded or written, 2 bad usage
(GRIDSAMPLE_DEBUG=1 adds the PNG codec's own words to a decoding error).

Example:
  npx gridsample warp photo.png out.png --rotate 30 --scale 0.8 --mode bicubic --padding border`;

/** Bad usage: reported with a pointer to --help and exit status 2. */
class UsageError extends Error {}
/** A file that cannot be read, decoded or written: exit status 1. */
class FileError extends Error {}

// --- arguments ---------------------------------------------------------------------------

const MODES = ['bilinear', 'linear', 'nearest', 'bicubic', 'cubic'];
const PADDINGS = ['zeros', 'border', 'reflection'];
const VALUE_OPTIONS = ['rotate', 'scale', 'shear', 'translate', 'theta', 'flow', 'strength', 'mode', 'padding', 'size'];
const FLAG_OPTIONS = ['align-corners', 'help', 'version'];
const SHORT = { '-h': 'help', '-v': 'version' };
const MAX_SIDE = 32768;
const OUTPUT_EXTENSIONS = ['.png']; // what writePng writes, lower case

function number(option, text) {
  const t = text.trim();
  const v = Number(t);
  if (t === '' || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) || !Number.isFinite(v)) {
    throw new UsageError(`--${option}: expected a number, got "${text}"`);
  }
  return v;
}

function numbers(option, text, counts, what) {
  const parts = text.split(',');
  if (!counts.includes(parts.length)) throw new UsageError(`--${option}: expected ${what}, got "${text}"`);
  return parts.map((p) => number(option, p));
}

function choice(option, text, allowed) {
  if (!allowed.includes(text)) {
    throw new UsageError(`--${option}: expected ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}, got "${text}"`);
  }
  return text;
}

/** The command line as {command, input, output, options}; throws UsageError. */
function parseArgs(argv) {
  const values = {};
  const positional = [];
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (SHORT[arg]) {
      values[SHORT[arg]] = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unknown option ${arg} (a file name starting with - goes after --)`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (FLAG_OPTIONS.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
    } else if (VALUE_OPTIONS.includes(name)) {
      // The next word is the value whatever it looks like, so that `--rotate -30` works.
      let value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name}: missing value`);
      if (name in values) throw new UsageError(`--${name} given twice`);
      value = String(value);
      values[name] = value;
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  if (values.help || values.version) return { command: values.help ? 'help' : 'version' };
  if (positional.length === 0) throw new UsageError('missing command; usage: gridsample warp IN.png OUT.png [options]');
  const [command, ...files] = positional;
  if (command === 'help') return { command: 'help' };
  if (command !== 'warp') throw new UsageError(`unknown command "${command}"; the commands are warp and onnx`);
  if (files.length < 2) throw new UsageError(`warp: expected IN.png and OUT.png, got ${files.length ? `only "${files[0]}"` : 'neither'}`);
  if (files.length > 2) throw new UsageError(`warp: expected IN.png and OUT.png, got ${files.length} files: ${files.join(' ')}`);

  const options = { mode: 'bilinear', padding: 'zeros', alignCorners: !!values['align-corners'], flow: null, strength: 0.6, size: null };
  const transform = ['rotate', 'scale', 'shear', 'translate'].filter((k) => k in values);
  if ('theta' in values) {
    if (transform.length) throw new UsageError(`--theta gives the whole matrix; it cannot be combined with --${transform.join(', --')}`);
    options.theta = numbers('theta', values.theta, [6], 'six numbers A,B,C,D,E,F');
  } else {
    const [scaleX, scaleY = scaleX] = 'scale' in values ? numbers('scale', values.scale, [1, 2], 'S or SX,SY') : [1];
    const [tx, ty] = 'translate' in values ? numbers('translate', values.translate, [2], 'TX,TY') : [0, 0];
    // In pixels of the input: θ follows once its size is known.
    options.transform = {
      rotate: 'rotate' in values ? number('rotate', values.rotate) : 0,
      scaleX,
      scaleY,
      shear: 'shear' in values ? number('shear', values.shear) : 0,
      tx,
      ty,
    };
  }
  if ('flow' in values) options.flow = choice('flow', values.flow, FLOW_NAMES);
  if ('strength' in values) {
    if (!options.flow) throw new UsageError('--strength needs --flow');
    options.strength = number('strength', values.strength);
    if (Math.abs(options.strength) > 1) throw new UsageError(`--strength: expected a number from -1 to 1, got "${values.strength}"`);
  }
  if ('mode' in values) options.mode = choice('mode', values.mode, MODES);
  if ('padding' in values) options.padding = choice('padding', values.padding, PADDINGS);
  if ('size' in values) {
    const m = /^(\d+)x(\d+)$/i.exec(values.size.trim());
    const [w, h] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
    if (!m || w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE) {
      throw new UsageError(`--size: expected WxH with each side from 1 to ${MAX_SIDE}, e.g. 640x480; got "${values.size}"`);
    }
    options.size = [w, h];
  }
  // Checked last, so that a bad option is reported first whatever the file names.
  const extension = extname(files[1]);
  if (!OUTPUT_EXTENSIONS.includes(extension.toLowerCase())) {
    throw new UsageError(`${files[1]}: ${extension ? `cannot write ${extension} files` : 'the output needs a file extension'}; the supported output format is PNG (.png)`);
  }
  return { command: 'warp', input: files[0], output: files[1], options };
}

// --- files ---------------------------------------------------------------------------------

function systemReason(e) {
  const reasons = { ENOENT: 'no such file or directory', EACCES: 'permission denied', EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is not a directory', EPERM: 'operation not permitted', ENOSPC: 'no space left on the device',
    EROFS: 'read-only file system' };
  return reasons[e.code] || e.message;
}

// The PNG codec is the package's one dependency; a checkout without `npm install` lacks it.
async function loadCodec() {
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

function readPng(path, size) {
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

function writePng(path, { width, height, data }) {
  const bytes = PNG.sync.write({ width, height, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) },
    { colorType: 6, inputColorType: 6, bitDepth: 8 });
  try {
    writeFileSync(path, bytes);
  } catch (e) {
    throw new FileError(`cannot write ${path}: ${systemReason(e)}`);
  }
}

// --- the warp ----------------------------------------------------------------------------

/**
 * Warps RGBA pixels {width, height, data} as the options say, with a loaded gridsample
 * module. The bytes are sampled as they are (uint8, rounded half to even by the library):
 * with `warpAffine` (affine, fused) or `gridSampleChannelsLast` where the package has them,
 * else with `gridSample` on planar (1, 4, H, W) bytes; all three give the same pixels.
 */
function warp(gs, image, options) {
  const { width, height } = image;
  const data = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
  const [ow, oh] = options.size || [width, height];
  const sampling = { mode: options.mode, paddingMode: options.padding, alignCorners: options.alignCorners };
  const theta = Float32Array.from(options.theta || thetaFromParams(options.transform, [width, height], options.alignCorners));
  if (!options.flow && typeof gs.warpAffine === 'function') {
    return gs.warpAffine({ data, width, height, channels: 4 }, theta, { ...sampling, width: ow, height: oh });
  }
  const grid = {
    data: options.flow
      ? flowGrid(options.flow, options.strength, theta, ow, oh, options.alignCorners)
      : gs.affineGrid({ data: theta, shape: [1, 2, 3] }, [1, 4, oh, ow], { alignCorners: options.alignCorners }).data,
    shape: [1, oh, ow, 2],
  };
  if (typeof gs.gridSampleChannelsLast === 'function') {
    const y = gs.gridSampleChannelsLast({ data, shape: [1, height, width, 4] }, grid, sampling);
    return { width: ow, height: oh, data: y.data };
  }
  // Interleaved (H, W, 4) as planar (1, 4, H, W), GridSample's NCHW layout, and back.
  const plane = width * height;
  const x = new Uint8Array(4 * plane);
  for (let i = 0; i < plane; ++i) for (let c = 0; c < 4; ++c) x[c * plane + i] = data[4 * i + c];
  const y = gs.gridSample({ data: x, shape: [1, 4, height, width] }, grid, sampling).data;
  const outPlane = ow * oh;
  const rgba = new Uint8Array(4 * outPlane);
  for (let i = 0; i < outPlane; ++i) for (let c = 0; c < 4; ++c) rgba[4 * i + c] = y[c * outPlane + i];
  return { width: ow, height: oh, data: rgba };
}

async function main(argv) {
  // The ONNX commands (and onnx-proto) load only when asked for.
  if (argv[0] === 'onnx') return (await import('./cli_onnx.mjs')).onnxCommand(argv.slice(1));
  let args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`gridsample: ${e.message}\nRun 'gridsample --help' for the options.\n`);
    return 2;
  }
  if (args.command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (args.command === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  try {
    await loadCodec();
    const image = readPng(args.input, args.options.size);
    let gs;
    try {
      gs = await load();
    } catch (e) {
      throw new FileError(`cannot load the wasm module: ${e && e.message ? e.message : e}`);
    }
    const t0 = performance.now();
    let result;
    try {
      result = warp(gs, image, args.options);
    } catch (e) {
      // The library's own RangeError, e.g. an output larger than the 2 GiB wasm heap.
      if (e instanceof RangeError) throw new FileError(`cannot warp ${args.input} to ${args.options.size?.join('x') ?? `${image.width}x${image.height}`}: ${e.message}`);
      throw e;
    }
    const ms = performance.now() - t0;
    writePng(args.output, result);
    const o = args.options;
    process.stdout.write(`${args.output}: ${result.width}x${result.height} from ${image.width}x${image.height}, ` +
      `${o.flow ? `${o.flow} flow, ` : ''}${o.mode}/${o.padding}${o.alignCorners ? '/align-corners' : ''}, ` +
      `${gs.backend}, ${ms.toFixed(1)} ms\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof FileError)) throw e;
    process.stderr.write(`gridsample: ${e.message}\n`);
    // GRIDSAMPLE_DEBUG=1 adds what the PNG codec said, for a bug report.
    if (process.env.GRIDSAMPLE_DEBUG && e.cause) process.stderr.write(`(PNG codec: ${e.cause.message || e.cause})\n`);
    return 1;
  }
}

// Anything else is a bug of ours: still one line (GRIDSAMPLE_DEBUG=1 adds the stack trace).
main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
  const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  process.stderr.write(`gridsample: unexpected error: ${message.split('\n')[0]}\n`);
  if (process.env.GRIDSAMPLE_DEBUG && e && e.stack) process.stderr.write(`${e.stack}\n`);
  process.exitCode = 1;
});
