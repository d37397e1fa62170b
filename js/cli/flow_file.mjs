// The CLI's --flow-file: an optical-flow field in pixels from a Middlebury .flo file, a NumPy .npy array or raw float32 (.bin, with --flow-size), as gs.warpFlow takes it.
import { extname } from 'node:path';

import { FileError, readInput } from './files.mjs';
import { readNpy } from './npy.mjs';

/** The extensions --flow-file reads, for usage messages. */
export const FLOW_FILE_KINDS = '.flo (Middlebury), .npy (float32 [1, 2, H, W], [2, H, W] or [H, W, 2]) or .bin (raw float32 [2, H, W], with --flow-size WxH)';

const FLO_MAGIC = 202021.25; // 'PIEH' as a little-endian float32
const MAX_SIDE = 2 ** 24;

/** Whether --flow-file's name has an extension it reads; .bin needs --flow-size. */
export function flowFileKind(path) {
  const extension = extname(path).toLowerCase();
  return ['.flo', '.npy', '.bin'].includes(extension) ? extension : null;
}

/**
 * The flow in `path` (kind from flowFileKind; `size` [W, H] for .bin): an interleaved
 * {data, width, height} (dx, dy per pixel) or a planar {data, shape: [1, 2, H, W]}.
 * FileError with a reason of ours for a file that is not such a flow.
 */
export function readFlowFile(path, size) {
  const bytes = readInput(path);
  const invalid = (reason) => new FileError(`${path} is not a usable flow file (${reason})`);
  const floats = (offset, count) => {
    const data = new Float32Array(count);
    new Uint8Array(data.buffer).set(bytes.subarray(offset, offset + 4 * count));
    return data;
  };
  const kind = flowFileKind(path);
  if (kind === '.flo') {
    if (bytes.length < 12) throw invalid(`it has ${bytes.length} bytes, fewer than the 12 of a .flo header`);
    if (bytes.readFloatLE(0) !== FLO_MAGIC) throw invalid('it does not start with the .flo tag PIEH');
    const [width, height] = [bytes.readInt32LE(4), bytes.readInt32LE(8)];
    if (width < 1 || height < 1 || width >= MAX_SIDE || height >= MAX_SIDE) throw invalid(`its header says ${width}x${height} pixels`);
    const need = 12 + 8 * width * height;
    if (bytes.length < need) throw invalid(`it is truncated: ${width}x${height} pixels need ${need} bytes, it has ${bytes.length}`);
    return { data: floats(12, 2 * width * height), width, height };
  }
  if (kind === '.npy') {
    let array;
    try {
      array = readNpy(bytes, path);
    } catch (e) {
      if (e instanceof RangeError) throw new FileError(e.message);
      throw e;
    }
    const { type, dims } = array;
    if (type !== 'float32') throw invalid(`its elements are ${type}; a flow is float32`);
    const planar = dims.length === 4 ? dims[0] === 1 && dims[1] === 2 : dims.length === 3 && dims[0] === 2;
    if (planar) return { data: array.data, shape: [1, 2, dims.at(-2), dims.at(-1)] };
    if (dims.length === 3 && dims[2] === 2) return { data: array.data, width: dims[1], height: dims[0] };
    throw invalid(`its shape is [${dims.join(', ')}]; a flow is [1, 2, H, W], [2, H, W] or [H, W, 2]`);
  }
  const [width, height] = size;
  if (bytes.length !== 8 * width * height) {
    throw invalid(`it has ${bytes.length} bytes; a ${width}x${height} flow (--flow-size) of float32 [2, H, W] has ${8 * width * height}`);
  }
  return { data: floats(0, 2 * width * height), shape: [1, 2, height, width] };
}
