#!/usr/bin/env node
// The gridsample command line (`npx gridsample warp IN.png OUT.jpg ...`): warps a PNG or JPEG with the package's warps (its options are read in cli/args.mjs, its files in cli/files.mjs and cli/flow_file.mjs; `gridsample onnx ...` is cli/onnx_commands.mjs).
import { readFileSync } from 'node:fs';
import process from 'node:process';

import { load } from './node.mjs';
import { checkMatrices, hasMatrixToCheck, parseArgs, parseOrReport } from './cli/args.mjs';
import { encodeImage, FileError, fileName, formatOfName, FORMATS, loadCodecs, readImage, STDIO, writeOutputFile } from './cli/files.mjs';
import { readFlowFile } from './cli/flow_file.mjs';
import { startProgress } from './cli/progress.mjs';
import { flowGrid } from './images/flows.mjs';
import { thetaFromParams } from './images/pixel_space.mjs';

const VERSION = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version;

const HELP = `Usage: gridsample warp IN OUT [options]
       gridsample onnx inspect|bench MODEL.onnx [options]   (see gridsample onnx --help)
       gridsample --help | --version

Warps an image with gridsample's WebAssembly build and writes an 8-bit PNG (grey or colour,
with alpha where the picture has any), or a JPEG (no alpha: transparent pixels keep their
colour, black outside the image unless --fill; JPEG needs: npm install jpeg-js). The format
is the file name's extension (any case): .png, or .jpg / .jpeg; an input without an
extension (a pipe) is told by its first bytes, an output without one needs --format. IN -
reads standard input, OUT - writes standard output (the summary then goes to stderr):
  cat photo.jpg | gridsample warp - - --format png --rotate 30 > out.png
JPEG EXIF orientation is not applied.

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
  --matrix A,B,C,D,E,F      a pixel-space 2x3 matrix as OpenCV's warpAffine takes it: from
                            source to destination pixels, origin at the top-left pixel's
                            centre (instead of the transforms above)
  --inverse                 --matrix maps output pixels to input pixels instead
                            (OpenCV's WARP_INVERSE_MAP)
  --perspective X1,Y1,...,X4,Y4
                            rectify: the quad with these corners in the input (pixels;
                            top-left, top-right, bottom-right, bottom-left) onto the whole
                            output, its corners onto the output's corner pixels
  --flow swirl|lens|wave    a non-affine flow field, applied to the output grid before θ
  --strength S              strength of --flow, -1..1 (default 0.6; lens: + barrel,
                            - pincushion; swirl: the sign sets the direction)
  --flow-file FILE          warp by an optical flow in pixels, out(p) = in(p + flow(p))
                            (RAFT's convention; the output has the flow's size): .flo
                            (Middlebury), .npy (float32 [1,2,H,W], [2,H,W] or [H,W,2]), or
                            .bin (raw little-endian float32 [2,H,W]: dx plane, then dy)
  --flow-size WxH           the size of a .bin flow

Sampling (the GridSample attributes):
  --mode bilinear|nearest|bicubic      default bilinear ('linear', 'cubic' also accepted)
  --padding zeros|border|reflection    default zeros (transparent outside the image)
  --align-corners                      align_corners = 1 (default 0)
  --size WxH                           output size in pixels (default: the input's)
  --fill V | R,G,B | R,G,B,A           the colour outside the image with --padding zeros
                                       (0..255; default 0,0,0,0: transparent black)
  --quality Q                          JPEG output quality, 1..100 (default 90)
  --format png|jpeg                    the output's format where its name has no extension
                                       (-, /dev/stdout); with one, they must agree
  --threads N                          threads for the warp, 1..64 (default
                                       min(4, ceil(cores / 2)); results do not change)

  --json                    print one JSON line instead of the summary: files, sizes,
                            sampling, backend, milliseconds (ms: the warp; times: decode,
                            warp, encode, total) and the matrix used

  -h, --help                this text
  -v, --version             the version

The summary's times: decode (reading the files included), warp, encode (writing included)
and total (the whole command). On a terminal, a step that runs over a second shows a
progress line on stderr. An output file is written to a temporary file beside it, then
renamed over it: a failed or interrupted write leaves an existing file as it was.

Exit status: 0 done, 1 a file could not be read, decoded or written, 2 bad usage
(GRIDSAMPLE_DEBUG=1 adds the codec's own words to a decoding error).

Examples:
  npx gridsample warp photo.png out.png --rotate 30 --scale 0.8 --mode bicubic --padding border
  npx gridsample warp page.jpg flat.jpg --perspective 112,80,530,95,560,700,90,690 --size 600x800 --fill 255,255,255
  npx gridsample warp frame2.png warped.png --flow-file flow.flo --padding border`;

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
  const rgba = { data, width, height, channels: 4 };
  const fill = options.fill ? { fill: options.fill } : {};
  if (options.flowFile) {
    const y = gs.warpFlow(rgba, options.flowFile.flow, { mode: options.mode, paddingMode: options.padding, ...fill });
    return { ...y, matrix: null };
  }
  if (options.matrix || options.perspective) {
    const pixel = { mode: options.mode, paddingMode: options.padding, space: 'pixel', width: ow, height: oh, ...fill };
    if (options.matrix) {
      const y = gs.warpAffine(rgba, options.matrix, { ...pixel, inverse: options.inverse });
      return { ...y, matrix: { space: 'pixel', inverse: options.inverse, values: options.matrix } };
    }
    const h = gs.perspectiveTransform(options.perspective, [[0, 0], [ow - 1, 0], [ow - 1, oh - 1], [0, oh - 1]]);
    return { ...gs.warpPerspective(rgba, h, pixel), matrix: { space: 'pixel', inverse: false, values: h } };
  }
  const sampling = { mode: options.mode, paddingMode: options.padding, alignCorners: options.alignCorners };
  const theta = Float32Array.from(options.theta || thetaFromParams(options.transform, [width, height], options.alignCorners));
  const used = { space: 'normalized', values: Array.from(theta) };
  if (!options.flow && typeof gs.warpAffine === 'function') {
    return { ...gs.warpAffine(rgba, theta, { ...sampling, width: ow, height: oh, ...fill }), matrix: used };
  }
  const grid = {
    data: options.flow
      ? flowGrid(gs, options.flow, options.strength, theta, ow, oh, options.alignCorners)
      : gs.affineGrid({ data: theta, shape: [1, 2, 3] }, [1, 4, oh, ow], { alignCorners: options.alignCorners }).data,
    shape: [1, oh, ow, 2],
  };
  if (typeof gs.gridSampleChannelsLast === 'function') {
    const y = gs.gridSampleChannelsLast({ data, shape: [1, height, width, 4] }, grid, sampling);
    return { width: ow, height: oh, data: y.data, matrix: used };
  }
  // Interleaved (H, W, 4) as planar (1, 4, H, W), GridSample's NCHW layout, and back.
  const plane = width * height;
  const x = new Uint8Array(4 * plane);
  for (let i = 0; i < plane; ++i) for (let c = 0; c < 4; ++c) x[c * plane + i] = data[4 * i + c];
  const y = gs.gridSample({ data: x, shape: [1, 4, height, width] }, grid, sampling).data;
  const outPlane = ow * oh;
  const out = new Uint8Array(4 * outPlane);
  for (let i = 0; i < outPlane; ++i) for (let c = 0; c < 4; ++c) out[4 * i + c] = y[c * outPlane + i];
  return { width: ow, height: oh, data: out, matrix: used };
}

// [width, height] of a flow as readFlowFile returns it.
function flowSize(flow) {
  return flow.shape ? [flow.shape[3], flow.shape[2]] : [flow.width, flow.height];
}

// The milliseconds `body` takes, and its result.
function timed(body) {
  const t0 = performance.now();
  const result = body();
  return [result, performance.now() - t0];
}

/**
 * Writes the output whole or not at all: a termination signal during the write (Ctrl-C)
 * stops it and removes the temporary file, then ends the command as the signal would.
 * Returns whether it was written; false after such a signal. (Until then, a signal ends the
 * command at once: nothing of the output exists yet.)
 */
async function writeInterruptibly(path, bytes) {
  const controller = new AbortController();
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let received = null;
  const stop = (signal) => {
    received = signal;
    controller.abort();
  };
  for (const signal of signals) process.on(signal, stop);
  try {
    await writeOutputFile(path, bytes, { signal: controller.signal });
    return true;
  } catch (e) {
    if (!received) throw e;
    return false;
  } finally {
    for (const signal of signals) process.off(signal, stop);
    if (received) process.kill(process.pid, received);
  }
}

async function main(argv) {
  // The ONNX commands (and the protobuf reader) load only when asked for.
  if (argv[0] === 'onnx') return (await import('./cli/onnx_commands.mjs')).onnxCommand(argv.slice(1));
  const args = parseOrReport(parseArgs, argv, 'gridsample --help');
  if (!args) return 2;
  if (args.command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (args.command === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const progress = startProgress();
  try {
    // Pixel-space matrices are the library's to check, before any file is read (bad usage).
    let gs = null;
    if (hasMatrixToCheck(args.options)) {
      gs = await loadModule(args.options);
      if (!parseOrReport((options) => checkMatrices(gs, options), args.options, 'gridsample --help')) return 2;
    }
    return await warpCommand(args, progress, gs);
  } catch (e) {
    if (!(e instanceof FileError)) throw e;
    progress.stop();
    process.stderr.write(`gridsample: ${e.message}\n`);
    // GRIDSAMPLE_DEBUG=1 adds what the codec said, for a bug report.
    if (process.env.GRIDSAMPLE_DEBUG && e.cause) process.stderr.write(`(codec: ${e.cause.message || e.cause})\n`);
    return 1;
  } finally {
    progress.stop();
  }
}

// The wasm module for the warp's options (--threads), or a FileError that says why not.
async function loadModule(o) {
  try {
    return await load(o.threads ? { numThreads: o.threads } : {});
  } catch (e) {
    throw new FileError(`cannot load the wasm module: ${e && e.message ? e.message : e}`);
  }
}

// `gridsample warp`: reads, warps and writes, timing each step, and prints the summary.
async function warpCommand(args, progress, loaded) {
  const o = args.options;
  // The input's codec (any, for a name without an extension) and the output's.
  const inputFormat = formatOfName(args.input);
  await loadCodecs([...(inputFormat ? [inputFormat] : FORMATS), args.outputFormat]);
  const [inputName, outputName] = [fileName(args.input), fileName(args.output, { output: true })];
  progress.step(`decoding ${inputName}`);
  const [image, decodeMs] = timed(() => {
    if (o.flowFile) o.flowFile.flow = readFlowFile(o.flowFile.path, o.flowFile.size);
    return readImage(args.input, o.flowFile ? flowSize(o.flowFile.flow) : o.size);
  });
  const outputSize = o.flowFile ? flowSize(o.flowFile.flow) : o.size ?? [image.width, image.height];
  progress.step('loading the wasm module');
  const gs = loaded ?? await loadModule(o);
  progress.step(`warping ${image.width}x${image.height} to ${outputSize.join('x')}`);
  const [result, warpMs] = timed(() => {
    try {
      return warp(gs, image, o);
    } catch (e) {
      // The library's own RangeError, e.g. an output larger than the 2 GiB wasm heap.
      if (e instanceof RangeError) throw new FileError(`cannot warp ${inputName} to ${outputSize.join('x')}${o.flowFile ? ` by ${o.flowFile.path}` : ''}: ${e.message}`);
      throw e;
    }
  });
  progress.step(`encoding ${outputName}`);
  const encodeStart = performance.now();
  const bytes = encodeImage(args.outputFormat, result, { quality: o.quality });
  progress.step(`writing ${outputName}`);
  if (!(await writeInterruptibly(args.output, bytes))) return 1;
  const encodeMs = performance.now() - encodeStart;
  // performance.now() counts from the process's start: the whole command.
  const times = { decode: decodeMs, warp: warpMs, encode: encodeMs, total: performance.now() };
  progress.stop();
  // Standard output may be the image itself: the summary goes to stderr then.
  const report = args.output === STDIO ? process.stderr : process.stdout;
  if (o.json) {
    const ms = (t) => Number(t.toFixed(3));
    report.write(`${JSON.stringify({
      input: args.input, output: args.output, inputSize: [image.width, image.height], outputSize: [result.width, result.height],
      warp: o.flowFile ? 'flow-file' : o.perspective ? 'perspective' : 'affine', flow: o.flow, flowFile: o.flowFile?.path ?? null,
      mode: o.mode, padding: o.padding, fill: o.fill ?? null, alignCorners: o.alignCorners,
      matrix: result.matrix, backend: gs.backend, threads: gs.threads, ms: ms(warpMs),
      times: Object.fromEntries(Object.entries(times).map(([k, t]) => [k, ms(t)])),
    })}\n`);
    return 0;
  }
  const what = o.flowFile ? `flow ${o.flowFile.path}, ` : o.perspective ? 'perspective, ' : o.matrix ? 'pixel matrix, ' : o.flow ? `${o.flow} flow, ` : '';
  report.write(`${outputName}: ${result.width}x${result.height} from ${image.width}x${image.height}, ` +
    `${what}${o.mode}/${o.padding}${o.alignCorners ? '/align-corners' : ''}, ` +
    `${gs.backend}${gs.threads > 1 ? ` (${gs.threads} threads)` : ''}; ` +
    `${Object.entries(times).map(([k, t]) => `${k} ${t.toFixed(1)} ms`).join(', ')}\n`);
  return 0;
}

// Anything else is a bug of ours: still one line (GRIDSAMPLE_DEBUG=1 adds the stack trace).
main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
  const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  process.stderr.write(`gridsample: unexpected error: ${message.split('\n')[0]}\n`);
  if (process.env.GRIDSAMPLE_DEBUG && e && e.stack) process.stderr.write(`${e.stack}\n`);
  process.exitCode = 1;
});
