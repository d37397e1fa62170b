// Interleaved images on the GPU for gridsample/webgpu's warps: reading image and map arguments (GPU buffers, rows optionally padded, or CPU images as the wasm API reads them), bringing a texture, an ImageBitmap, a VideoFrame, a canvas or a video onto the GPU as such an image, and reading one back.
import { readImage, readMap } from '../images/warps.mjs';
import { describe } from '../core/messages.mjs';
import { readChannels, readSide } from '../core/plain_args.mjs';
import { firstLine } from './dispatch.mjs';
import { bindingBytes, checkBoundBuffer, checkNotDisposed, isGpuBuffer, USAGE } from './tensors.mjs';

const IMAGE_DTYPES = ['uint8', 'float32'];
// GPUTextureUsage's flags and copyTextureToBuffer's row alignment, by value.
const TEXTURE_USAGE = { COPY_SRC: 0x1, COPY_DST: 0x2, TEXTURE_BINDING: 0x4, RENDER_ATTACHMENT: 0x10 };
const ROW_ALIGNMENT = 256;

/**
 * An image argument: a GPU image {buffer, width, height, channels, dtype, bytesPerRow?} (dtype
 * 'uint8' or 'float32'; interleaved rows, `bytesPerRow` apart, by default width * channels
 * elements) read here as {buffer, dtype, width, height, channels, row (elements per row), size,
 * bytes, tensor (the argument)}, or a CPU image as the wasm API reads it (to upload). `map`: {channels}, a remap map
 * (float32, 1 or 2 channels).
 */
export function readGpuImage(fn, what, image, { map = null } = {}) {
  if (image === null || typeof image !== 'object' || !isGpuBuffer(image.buffer)) {
    const I = map ? readMap(null, fn, what, image, map.channels) : readImage(null, fn, what, image, null);
    return { ...I, row: I.width * I.channels };
  }
  checkNotDisposed(fn, what, image);
  const dtype = image.dtype ?? (map ? 'float32' : undefined);
  const dtypes = map ? ['float32'] : IMAGE_DTYPES;
  if (!dtypes.includes(dtype)) {
    throw new TypeError(`${fn}: ${what}.dtype: expected ${dtypes.map((d) => `'${d}'`).join(' or ')}, got ${describe(image.dtype)}`);
  }
  const width = readSide(fn, `${what}.width`, image.width);
  const height = readSide(fn, `${what}.height`, image.height);
  const channels = image.channels === undefined && map ? map.channels : readChannels(fn, `${what}.channels`, image.channels);
  if (map && channels !== map.channels) {
    throw new RangeError(`${fn}: ${what}.channels: expected ${map.channels} (${map.channels === 2 ? 'interleaved x and y' : 'a plane'}), got ${channels}`);
  }
  const element = dtype === 'uint8' ? 1 : 4;
  const tight = width * channels * element;
  const rowBytes = image.bytesPerRow === undefined ? tight : readSide(fn, `${what}.bytesPerRow`, image.bytesPerRow);
  if (map && rowBytes !== tight) {
    throw new RangeError(`${fn}: ${what}.bytesPerRow: a map's rows are not padded (${tight} bytes each), got ${rowBytes}`);
  }
  if (rowBytes < tight || rowBytes % element !== 0) {
    throw new RangeError(`${fn}: ${what}.bytesPerRow: expected a multiple of ${element} of at least ${tight} (${width} pixels of ${channels} ${dtype} values), got ${rowBytes}`);
  }
  const bytes = height === 0 ? 0 : rowBytes * (height - 1) + tight;
  checkBoundBuffer(fn, what, image.buffer);
  if (image.buffer.size < bindingBytes(bytes)) {
    throw new RangeError(`${fn}: ${what}: its GPUBuffer has ${image.buffer.size} bytes, a ${width}x${height} ${dtype} image of ${channels} channels${rowBytes === tight ? '' : ` with rows ${rowBytes} bytes apart`} needs ${bindingBytes(bytes)}`);
  }
  return { buffer: image.buffer, dtype, width, height, channels, row: rowBytes / element, size: width * height * channels, bytes, tensor: image };
}

/** The pixels of a GPU image read by readGpuImage, from the bytes of its buffer: rows packed, uint8 as a Uint8ClampedArray. */
export function imagePixels(I, bytes) {
  const Array_ = I.dtype === 'uint8' ? Uint8ClampedArray : Float32Array;
  const element = I.dtype === 'uint8' ? 1 : 4;
  const tight = I.width * I.channels;
  if (I.row === tight) return new Array_(bytes.buffer, bytes.byteOffset, I.size);
  const data = new Array_(I.size);
  for (let y = 0; y < I.height; ++y) {
    data.set(new Array_(bytes.buffer, bytes.byteOffset + y * I.row * element, tight), y * tight);
  }
  return data;
}

// The size of what copyExternalImageToTexture takes: [width, height], or null.
function externalSize(source) {
  if (source === null || typeof source !== 'object') return null;
  if (typeof source.displayWidth === 'number') return [source.displayWidth, source.displayHeight]; // VideoFrame
  if (typeof source.videoWidth === 'number') return [source.videoWidth, source.videoHeight]; // HTMLVideoElement
  if (typeof source.naturalWidth === 'number') return [source.naturalWidth, source.naturalHeight]; // HTMLImageElement
  if (typeof source.width === 'number' && typeof source.height === 'number' && !('data' in source)) return [source.width, source.height];
  return null;
}

const isTexture = (t) => t !== null && typeof t === 'object' && typeof t.createView === 'function' && typeof t.format === 'string';

/**
 * gpu.importImage(source): an RGBA uint8 GPU image of `source`'s pixels, made on `device` with
 * GPU copies only: a GPUTexture of format rgba8unorm (with COPY_SRC usage), or anything
 * copyExternalImageToTexture takes (ImageBitmap, VideoFrame, a canvas, OffscreenCanvas, a video
 * or image element). Its rows are padded to 256 bytes (bytesPerRow), as texture copies need;
 * `make(buffer, dims, extra)` wraps the buffer as a GPU image.
 */
export function importImage(device, fn, source, make) {
  let texture;
  let own = null;
  let width;
  let height;
  if (isTexture(source)) {
    if (source.format !== 'rgba8unorm' && source.format !== 'rgba8unorm-srgb') {
      throw new TypeError(`${fn}: source: expected a GPUTexture of format rgba8unorm (RGBA bytes), got ${source.format}; a canvas's bgra8unorm texture: import the canvas itself`);
    }
    if (!(source.usage & TEXTURE_USAGE.COPY_SRC)) {
      throw new TypeError(`${fn}: source: its GPUTexture lacks COPY_SRC usage (usage ${source.usage}); create it with GPUTextureUsage.COPY_SRC`);
    }
    [texture, width, height] = [source, source.width, source.height];
  } else {
    const size = externalSize(source);
    if (!size) {
      throw new TypeError(`${fn}: source: expected a GPUTexture, an ImageBitmap, a VideoFrame, a canvas, an OffscreenCanvas, a video or an image element, got ${describe(source)}; a CPU image {data, width, height}: use upload()`);
    }
    [width, height] = size;
    own = device.createTexture({
      size: [Math.max(1, width), Math.max(1, height)], format: 'rgba8unorm',
      usage: TEXTURE_USAGE.COPY_SRC | TEXTURE_USAGE.COPY_DST | TEXTURE_USAGE.RENDER_ATTACHMENT | TEXTURE_USAGE.TEXTURE_BINDING,
    });
    texture = own;
  }
  const bytesPerRow = Math.max(ROW_ALIGNMENT, Math.ceil((4 * width) / ROW_ALIGNMENT) * ROW_ALIGNMENT);
  const buffer = device.createBuffer({ size: Math.max(4, bytesPerRow * height), usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST });
  device.pushErrorScope('validation');
  try {
    if (own && width > 0 && height > 0) device.queue.copyExternalImageToTexture({ source }, { texture: own }, [width, height]);
    if (width > 0 && height > 0) {
      const encoder = device.createCommandEncoder();
      encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow, rowsPerImage: height }, [width, height]);
      device.queue.submit([encoder.finish()]);
    }
  } catch (e) {
    device.popErrorScope();
    buffer.destroy();
    own?.destroy();
    throw new TypeError(`${fn}: source: the GPU could not copy it: ${firstLine(e)}`, { cause: e });
  }
  const scope = device.popErrorScope();
  own?.destroy();
  const image = make(buffer, [height, width, 4], { width, height, channels: 4, bytesPerRow });
  return scope.then(async (error) => {
    if (!error) return image;
    image.dispose();
    if (texture === source && await foreignTexture(device, source)) {
      throw new TypeError(`${fn}: source: its GPUTexture belongs to another GPUDevice`);
    }
    throw new RangeError(`${fn}: the GPU refused to copy the source: ${firstLine(error)}`);
  });
}

// Whether `texture` is of another device than `device`: a copy of one texel recorded and the
// encoder finished, never submitted, in an error scope of its own (a destroyed texture records
// and finishes without an error: its refusal comes at submission).
async function foreignTexture(device, texture) {
  const probe = device.createBuffer({ size: ROW_ALIGNMENT, usage: USAGE.COPY_DST });
  device.pushErrorScope('validation');
  try {
    const encoder = device.createCommandEncoder();
    encoder.copyTextureToBuffer({ texture }, { buffer: probe, bytesPerRow: ROW_ALIGNMENT }, [1, 1]);
    encoder.finish();
  } catch {
    // Thrown rather than reported: not ours to name.
  }
  const error = await device.popErrorScope();
  probe.destroy();
  return error !== null;
}
