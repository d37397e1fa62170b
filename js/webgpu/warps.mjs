// gridsample/webgpu's image warps (warpAffine, warpPerspective, remap) on interleaved uint8 or float32 images in GPU buffers or on the CPU (uploaded), with the CPU API's arguments, options and messages (js/images/warps.mjs, DESIGN.md section 9); what the shader samples at is the library's coordinate table (src/kernels/api/warp_tables.h), made by the reference's own rules.
import { readFill, readSpace, WARPS } from '../images/warps.mjs';
import { readMatrix, readOptions, readSide } from '../core/plain_args.mjs';
import { readGpuImage } from './gpu_images.mjs';
import { readGpuOut } from './tensors.mjs';
import { warpParams, warpWgsl } from './warp_wgsl.mjs';

/**
 * The warps over `compute` (index.mjs's dispatch of one shader), `checkBinding` (whether bytes
 * fit one binding of the device), `rules` (the library's) and `wasm` (the module whose API they
 * mirror).
 */
export function makeWarps({ compute, checkBinding, rules, wasm }) {
  // The sampling options and the fill are the library's to check (a fill needs zeros padding,
  // finite values): shown to it on a 1x1 image, in a call that throws its message.
  function checkWithLibrary(fn, I, opts) {
    const names = ['mode', 'paddingMode', 'padding_mode', 'fill', 'alignCorners', 'align_corners'];
    const o = Object.fromEntries(names.filter((k) => opts[k] !== undefined).map((k) => [k, opts[k]]));
    const image = { data: new (I.dtype === 'uint8' ? Uint8Array : Float32Array)(I.channels), width: 1, height: 1, channels: I.channels };
    if (fn === 'remap') wasm.remap(image, { data: new Float32Array(2), width: 1, height: 1 }, undefined, o);
    else wasm[fn](image, fn === 'warpAffine' ? [1, 0, 0, 0, 1, 0] : [1, 0, 0, 0, 1, 0, 0, 0, 1], { ...o, width: 1, height: 1 });
  }

  // The result's GPU image: options.out (a GPU image of the input's dtype and channels and the
  // output's size) or a new one; `what` are the inputs whose buffers out must not share.
  function readOut(fn, out, I, width, height, inputs) {
    if (out === undefined) return null;
    const O = readGpuImage(fn, 'options.out', out);
    if (!O.buffer) throw new TypeError(`${fn}: options.out: expected a GPU image {buffer, width, height, channels, dtype} (a CPU image: use read() on the result)`);
    if (O.width !== width || O.height !== height) {
      throw new RangeError(`${fn}: options.out: expected a ${width}x${height} image (the output's size), got ${O.width}x${O.height}`);
    }
    const dims = [height, width, I.channels];
    // Checked as a tensor of its rows' elements (padding included): dtype, channels, aliasing.
    readGpuOut(fn, { buffer: O.buffer, dims: [O.height, O.width, O.channels], dtype: O.dtype }, I.dtype, dims, inputs);
    return { buffer: O.buffer, tensor: out, row: O.row, bytes: O.bytes };
  }

  // One warp: the shader for `key`, the result image (out's rows may be padded: bytesPerRow),
  // one invocation per output pixel (float32, and uint8 RGBA with rows of whole u32 words in
  // and unpadded out) or per 4 bytes of it (other uint8, which writes out's padding bytes 0).
  async function run(fn, { I, inputs, key, source, fill, width, height, opts }) {
    const out = readOut(fn, opts.out, I, width, height, inputs);
    const u8 = I.dtype === 'uint8';
    const outRow = out ? out.row : width * I.channels;
    const rgba = u8 && I.channels === 4 && I.row % 4 === 0 && outRow === width * 4;
    // An empty output writes nothing (not even the padding of out's rows).
    const empty = width * height * I.channels === 0;
    const bytes = empty ? 0 : out ? out.bytes : width * height * I.channels * (u8 ? 1 : 4);
    const fullKey = { ...key, u8, rgba, fill: fill[0] > 0 };
    const y = await compute(fn, { key: `warp:${JSON.stringify(fullKey)}`, wgsl: () => warpWgsl(fullKey) }, {
      inputs, out, dtype: I.dtype, dims: [height, width, I.channels], bytes, encoder: opts.encoder,
      invocations: u8 && !rgba ? Math.ceil(bytes / 4) : width * height,
      params: (invocations, groupsWidth) => warpParams({
        inWidth: I.width, inHeight: I.height, channels: I.channels, outWidth: width, outHeight: height,
        invocations, width: groupsWidth, inRow: I.row, outRow, source, fill: fill.slice(1),
      }),
    });
    if (out) return out.tensor;
    return Object.assign(y, { width, height, channels: I.channels });
  }

  // The output size of a warp (options.width / height, else options.out's, else the image's).
  function outputSize(fn, opts, I) {
    const side = (name) => (opts[name] === undefined ? undefined : readSide(fn, `options.${name}`, opts[name]));
    const [w, h] = [side('width'), side('height')];
    const out = opts.out !== null && typeof opts.out === 'object' ? opts.out : {};
    const outSide = (name) => (out[name] === undefined ? undefined : readSide(fn, `options.out.${name}`, out[name]));
    return { width: w ?? outSide('width') ?? I.width, height: h ?? outSide('height') ?? I.height };
  }

  // What every warp checks before it computes coordinates: an output that samples an empty
  // image, and bindings (the image, the maps, the coordinates it would make, the output) larger
  // than this GPU binds, refused before anything is allocated.
  function checkSizes(fn, I, width, height, bindings) {
    const empty = width * height * I.channels === 0;
    if (!empty && I.size === 0) {
      throw new RangeError(`${fn}: image: it has no pixels (${I.width}x${I.height}) but the output ${width}x${height} samples from it`);
    }
    if (empty) return true;
    checkBinding(fn, 'the output', width * height * I.channels * (I.dtype === 'uint8' ? 1 : 4));
    for (const [what, bytes] of [['image', I.bytes], ...bindings]) checkBinding(fn, what, bytes);
    return false;
  }

  /** gpu.warpAffine(image, matrix, options) and gpu.warpPerspective(image, h, options): as the wasm API's. */
  function warp(fn) {
    const spec = WARPS[fn];
    return async (image, matrix, options) => {
      const opts = readOptions(fn, options,
        ['mode', 'paddingMode', 'padding_mode', 'alignCorners', 'align_corners', 'width', 'height', 'out', 'space', 'inverse', 'fill', 'encoder']);
      const { space, inverse } = readSpace(fn, opts);
      const I = readGpuImage(fn, 'image', image);
      const M = readMatrix(fn, spec.name[space], matrix, spec.count);
      const sampling = rules.sampling(fn, opts);
      const fill = readFill(fn, opts.fill, I.channels);
      checkWithLibrary(fn, I, opts);
      const { width, height } = outputSize(fn, opts, I);
      const affine = space === 'normalized' && fn === 'warpAffine';
      // The library's table for the shader: its kind and size first, made once the sizes fit.
      const table = rules.warpTableLayout(affine ? M : null, sampling.padding, width, height);
      const empty = checkSizes(fn, I, width, height, [['the coordinate table', table.bytes]]);
      const key = { mode: rules.modeName(sampling.mode), padding: rules.paddingName(sampling.padding), align: sampling.align };
      let coords;
      if (empty) {
        coords = { terms: new Float32Array(0), source: [0, 0, 0, 0], key: { ...key, source: 'perspective' } };
      } else if (affine) {
        const { terms, source } = rules.warpTable(fn, table.kind, M.data, width, height, sampling.align);
        // A float64 theta's pairs are reduced modulo 4 before their rounding, as the reference reduces its double.
        const reduceFirst = table.kind === 'affine' ? { reduceFirst: M.dtype === 'float64' } : {};
        coords = { terms, source, key: { ...key, source: table.kind, ...reduceFirst } };
      } else {
        const h = fn === 'warpAffine' ? [...M.data, 0, 0, 1] : [...M.data];
        const H = rules.pixelHomography(fn, spec.name[space], h, space, inverse, [I.width, I.height], [width, height], sampling.align);
        const { terms, source } = rules.warpTable(fn, table.kind, H, width, height, sampling.align);
        // Pixel space fixes the points; alignCorners then only picks reflection's lines.
        coords = { terms, source, key: { ...key, source: 'perspective', align: space === 'pixel' ? false : sampling.align } };
      }
      const T = { data: coords.terms, bytes: coords.terms.byteLength };
      return run(fn, { I, inputs: [['image', I], ['the coordinates', T]], key: coords.key, source: coords.source, fill, width, height, opts });
    };
  }

  /** gpu.remap(image, mapX, mapY, options): as the wasm API's (maps in pixels, GPU or CPU). */
  async function remap(image, mapX, mapY, options) {
    const fn = 'remap';
    const opts = readOptions(fn, options, ['mode', 'paddingMode', 'padding_mode', 'out', 'fill', 'encoder']);
    const I = readGpuImage(fn, 'image', image);
    const interleaved = mapY === undefined || mapY === null;
    const MX = readGpuImage(fn, 'mapX', mapX, { map: { channels: interleaved ? 2 : 1 } });
    const MY = interleaved ? null : readGpuImage(fn, 'mapY', mapY, { map: { channels: 1 } });
    if (MY && (MY.width !== MX.width || MY.height !== MX.height)) {
      throw new RangeError(`${fn}: mapY: expected mapX's size ${MX.width}x${MX.height}, got ${MY.width}x${MY.height}`);
    }
    const sampling = rules.sampling(fn, opts);
    const fill = readFill(fn, opts.fill, I.channels);
    checkWithLibrary(fn, I, opts);
    const [width, height] = [MX.width, MX.height];
    checkSizes(fn, I, width, height, [['mapX', MX.bytes], ...(MY ? [['mapY', MY.bytes]] : [])]);
    const key = {
      source: MY ? 'planes' : 'maps', mode: rules.modeName(sampling.mode), padding: rules.paddingName(sampling.padding), align: false,
    };
    const inputs = [['image', I], ['mapX', MX], ...(MY ? [['mapY', MY]] : [])];
    return run(fn, { I, inputs, key, source: [0, 0, 0, 0], fill, width, height, opts });
  }

  return { warpAffine: warp('warpAffine'), warpPerspective: warp('warpPerspective'), remap };
}
