// The CLI's image codecs against maintained alternatives on a 4000x3000 photo-like picture (issue 27): decode and encode milliseconds (median of 5) next to the warp itself; standalone, not part of make bench.
//
//   npm install --prefix /tmp/codecs --no-save jpeg-js pngjs @jsquash/jpeg @jsquash/png sharp
//   node bench/js/codecs.mjs /tmp/codecs [WxH]     # the folder whose node_modules holds them
//
// Each candidate that is not installed there is left out. jSquash's Emscripten / wasm-bindgen
// glue fetches its .wasm by URL, which Node.js's fetch cannot do for file: URLs: it is
// compiled from the file here and handed to the codec's init(), as its README says for
// runtimes without fetch.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { load } from '../../js/node.mjs';
import { medianOfRuns } from './timing.mjs';

const from = resolve(process.argv[2] ?? '.');
const [W, H] = (process.argv[3] ?? '4000x3000').split('x').map(Number);
const RUNS = 5;
const QUALITY = 90;
const require = createRequire(join(from, 'node_modules', 'x.js'));

// A package's main module as Node.js imports it from `from`, or null when it is not there.
async function importFrom(name, subpath = '') {
  try {
    return await import(pathToFileURL(require.resolve(name + subpath)).href);
  } catch (e) {
    if (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return null;
    throw e;
  }
}
const packageDir = (name) => dirname(require.resolve(`${name}/package.json`));

// Smooth gradients, a few soft discs and a little noise: JPEG and deflate work on it about as
// hard as on a photograph (a flat or random picture would flatter one side or the other).
function picture(width, height) {
  const data = new Uint8Array(width * height * 4);
  let s = 12345;
  const noise = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 24) / 32 - 4;
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const i = 4 * (y * width + x);
      const u = x / width;
      const v = y / height;
      const disc = Math.max(0, 1 - Math.hypot(u - 0.6, v - 0.4) * 3) * 120 + 40 * Math.sin(9 * u + 5 * v);
      data[i] = Math.min(255, Math.max(0, 60 + 150 * u + disc + noise()));
      data[i + 1] = Math.min(255, Math.max(0, 40 + 120 * v + 0.5 * disc + noise()));
      data[i + 2] = Math.min(255, Math.max(0, 200 - 140 * u * v + noise()));
      data[i + 3] = 255;
    }
  }
  return { width, height, data };
}

// Each codec as { decode(bytes) -> {width, height, data RGBA}, encode({width, height, data}) -> bytes }.
async function codecs() {
  const list = [];
  const jpegJs = await importFrom('jpeg-js');
  if (jpegJs) {
    const jpeg = jpegJs.default;
    list.push(['jpeg-js', 'JPEG', {
      decode: (b) => jpeg.decode(b, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 512, maxMemoryUsageInMB: 4096 }),
      encode: (img) => jpeg.encode(img, QUALITY).data,
    }]);
  }
  const pngjs = await importFrom('pngjs');
  if (pngjs) {
    const { PNG } = pngjs.default;
    list.push(['pngjs', 'PNG', {
      decode: (b) => PNG.sync.read(Buffer.from(b)),
      encode: (img) => PNG.sync.write({ ...img, data: Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength) }, { colorType: 6, inputColorType: 6, bitDepth: 8 }),
    }]);
  }
  const [jd, je] = [await importFrom('@jsquash/jpeg', '/decode.js'), await importFrom('@jsquash/jpeg', '/encode.js')];
  if (jd && je) {
    const dir = packageDir('@jsquash/jpeg');
    await jd.init(await WebAssembly.compile(readFileSync(join(dir, 'codec/dec/mozjpeg_dec.wasm'))));
    await je.init(await WebAssembly.compile(readFileSync(join(dir, 'codec/enc/mozjpeg_enc.wasm'))));
    list.push(['@jsquash/jpeg (MozJPEG, wasm)', 'JPEG', {
      decode: (b) => jd.default(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
      encode: async (img) => new Uint8Array(await je.default(new ImageDataLike(img), { quality: QUALITY })),
    }]);
    // MozJPEG's defaults spend time on size (progressive, optimised Huffman codes, trellis
    // quantisation); baseline without optimised codes is what jpeg-js writes.
    list.push(['@jsquash/jpeg, baseline, no optimize_coding', 'JPEG', {
      decode: (b) => jd.default(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
      encode: async (img) => new Uint8Array(await je.default(new ImageDataLike(img), { quality: QUALITY, baseline: true, progressive: false, optimize_coding: false })),
    }]);
  }
  const [pd, pe] = [await importFrom('@jsquash/png', '/decode.js'), await importFrom('@jsquash/png', '/encode.js')];
  if (pd && pe) {
    const dir = packageDir('@jsquash/png');
    const wasm = await WebAssembly.compile(readFileSync(join(dir, 'codec/pkg/squoosh_png_bg.wasm')));
    await pd.init(wasm);
    await pe.init(wasm);
    list.push(['@jsquash/png (Rust png, wasm)', 'PNG', {
      decode: (b) => pd.default(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
      encode: async (img) => new Uint8Array(await pe.default(new ImageDataLike(img))),
    }]);
  }
  const sharpModule = await importFrom('sharp');
  if (sharpModule) {
    const sharp = sharpModule.default;
    sharp.concurrency(1); // as the CLI's default warp threads would compete with it otherwise; see the note
    const raw = async (b) => {
      const { data, info } = await sharp(b).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.height, data };
    };
    const from = (img) => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } });
    list.push(['sharp (libvips, native, 1 thread)', 'JPEG', { decode: raw, encode: (img) => from(img).jpeg({ quality: QUALITY }).toBuffer() }]);
    list.push(['sharp (libvips, native, 1 thread)', 'PNG', { decode: raw, encode: (img) => from(img).png().toBuffer() }]);
  }
  return list;
}

// jSquash's encoders take an ImageData, which Node.js lacks: its three fields are enough.
class ImageDataLike {
  constructor({ width, height, data }) {
    Object.assign(this, { width, height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), colorSpace: 'srgb' });
  }
}

const image = picture(W, H);
const list = await codecs();
// The inputs every decoder reads: the same bytes, from the reference encoders (jpeg-js at
// quality 90, pngjs), so that the decoders are compared on one file per format.
const reference = Object.fromEntries(list.filter(([name]) => name === 'jpeg-js' || name === 'pngjs').map(([, format, c]) => [format, c.encode(image)]));
if (!reference.JPEG || !reference.PNG) throw new Error(`codecs.mjs: jpeg-js and pngjs must be installed in ${from} (they make the inputs)`);
const gs = await load({ numThreads: 1 });
const [warpMs] = await medianOfRuns(RUNS, () => gs.warpAffine({ data: image.data, width: W, height: H, channels: 4 }, [0.9, 0.2, -30, -0.2, 0.9, 400], { mode: 'bilinear', space: 'pixel' }));
console.log(`${W}x${H} RGBA; JPEG input ${reference.JPEG.length} bytes (jpeg-js q${QUALITY}), PNG input ${reference.PNG.length} bytes (pngjs); median of ${RUNS}`);
console.log(`gridsample warpAffine bilinear, 1 thread (${gs.backend}): ${warpMs.toFixed(0)} ms\n`);
console.log('| codec | format | decode ms | encode ms | encoded bytes |');
console.log('| --- | --- | ---: | ---: | ---: |');
for (const [name, format, c] of list) {
  const [decodeMs, decoded] = await medianOfRuns(RUNS, () => c.decode(reference[format]));
  if (decoded.width !== W || decoded.height !== H || decoded.data.length !== W * H * 4) throw new Error(`${name}: decoded ${decoded.width}x${decoded.height}, ${decoded.data.length} bytes`);
  const [encodeMs, encoded] = await medianOfRuns(RUNS, () => c.encode(image));
  console.log(`| ${name} | ${format} | ${decodeMs.toFixed(0)} | ${encodeMs.toFixed(0)} | ${encoded.length} |`);
}
