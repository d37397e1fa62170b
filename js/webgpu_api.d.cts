// TypeScript declarations of gridsample/webgpu (DESIGN.md section 11), shared by its ES module and CommonJS entries. WebGPU objects are typed by the members used, so that no @webgpu/types is needed (a real GPUDevice or GPUBuffer fits).
import type {
  AlignCorners, DeformableAttentionOptions, DType, Dims, GridSample, Homography, ImageLike, LevelTensor, Mode, PaddingMode, PixelMap, RemapOptions, TensorData, TensorLike,
  Theta, WarpAffineOptions,
} from './api.cjs';

/** The members of a GPUBuffer gridsample uses. */
export interface GpuBufferLike {
  readonly size: number;
  readonly usage: number;
  mapAsync(mode: number, offset?: number, size?: number): Promise<undefined>;
  destroy(): undefined;
}

/** The members of a GPUDevice gridsample uses (a GPUDevice, e.g. `await ort.env.webgpu.device`). */
export interface GpuDeviceLike {
  readonly limits: { readonly maxStorageBufferBindingSize: number; readonly maxComputeWorkgroupsPerDimension: number };
  readonly queue: object;
  readonly lost: Promise<{ readonly reason?: string; readonly message?: string }>;
  createComputePipeline(descriptor: object): object;
  createBuffer(descriptor: object): GpuBufferLike;
  pushErrorScope(filter: 'validation' | 'out-of-memory' | 'internal'): undefined;
  popErrorScope(): Promise<{ readonly message: string } | null>;
}

/** A tensor on the GPU as a caller gives it: the buffer holds the elements from offset 0 (it may be larger). */
export interface GpuTensorInput {
  buffer: GpuBufferLike;
  dims: Dims;
  dtype: DType;
}

/** An onnxruntime-web Tensor whose location is 'gpu-buffer'. */
export interface OrtGpuTensorLike {
  readonly location: 'gpu-buffer';
  readonly gpuBuffer: GpuBufferLike;
  readonly dims: readonly number[];
  readonly type: string;
}

/** A tensor gridsample/webgpu returns: on the GPU until read(); dispose() destroys its buffer. */
export interface GpuTensor extends GpuTensorInput {
  readonly dims: readonly number[];
  readonly location: 'gpu-buffer';
  /** What computed it: the shaders, or the wasm module for dtypes they do not take; null for upload(). */
  readonly ranOn: 'webgpu' | 'wasm' | null;
  readonly disposed: boolean;
  dispose(): void;
}

/** Any tensor argument: on the GPU, or on the CPU (uploaded for the call). */
export type GpuInput = GpuTensorInput | OrtGpuTensorLike | TensorLike;

export interface GpuCallOptions {
  /** A GPU tensor of the result's dtype and shape to write into (not an input's buffer); the call resolves to it. */
  out?: GpuTensorInput;
  /** A GPUCommandEncoder to record into: nothing runs until the caller submits it; GPU errors then surface there. */
  encoder?: object;
}

export interface GpuDeformableAttentionOptions extends GpuCallOptions, Omit<DeformableAttentionOptions, 'out'> {}

export interface GpuSamplingOptions extends GpuCallOptions {
  mode?: Mode;
  paddingMode?: PaddingMode;
  padding_mode?: PaddingMode;
  alignCorners?: AlignCorners;
  align_corners?: AlignCorners;
}

export interface GpuAffineGridOptions extends GpuCallOptions {
  alignCorners?: AlignCorners;
  align_corners?: AlignCorners;
}

/**
 * An interleaved image on the GPU as a caller gives it: `height` rows of `width` pixels of
 * `channels` values (1 to 4), uint8 (4 to a 32-bit word) or float32, from offset 0, rows not
 * padded; the buffer has STORAGE usage (and may be larger).
 */
export interface GpuImageInput {
  buffer: GpuBufferLike;
  width: number;
  height: number;
  channels: number;
  dtype: 'uint8' | 'float32';
  /** Bytes from one row to the next (default: width * channels values, no padding); an output's padding bytes between rows are written (uint8: 0). */
  bytesPerRow?: number;
}

/** An image gridsample/webgpu returns: on the GPU until read(); dispose() destroys its buffer. */
export interface GpuImage extends GpuImageInput {
  readonly dims: readonly [number, number, number];
  readonly location: 'gpu-buffer';
  /** What computed it: the shaders; null for upload(). */
  readonly ranOn: 'webgpu' | null;
  readonly disposed: boolean;
  dispose(): void;
}

/** An image argument: on the GPU, or on the CPU (uploaded for the call). */
export type GpuImageArg = GpuImageInput | ImageLike;

/** A remap map on the GPU: float32 pixel coordinates, 2 channels (x, y) or 1 (a plane). */
export interface GpuPixelMap {
  buffer: GpuBufferLike;
  width: number;
  height: number;
  channels?: 1 | 2;
  dtype?: 'float32';
}

/** Options of the GPU warps: the wasm API's (no `rows`), `out` a GPU image of the output's size, and `encoder`. */
export interface GpuWarpOptions extends Omit<WarpAffineOptions<undefined>, 'out' | 'rows'> {
  out?: GpuImageInput;
  encoder?: object;
}
export interface GpuRemapOptions extends Omit<RemapOptions<undefined>, 'out'> {
  out?: GpuImageInput;
  encoder?: object;
}

export interface GpuOptions {
  /** The GPUDevice to run on; omitted: a new device of navigator.gpu's adapter. */
  device?: GpuDeviceLike;
  /** An API object from gridsample's load() (it answers the library's rules and computes other dtypes); omitted: load(). */
  wasm?: GridSample;
}

export interface Gpu {
  readonly device: GpuDeviceLike;
  readonly wasm: GridSample;
  /** GridSample (ONNX opsets 16, 20 and 22; any rank): float32 and float16 on the GPU, other dtypes on the wasm module. */
  gridSample(x: GpuInput, grid: GpuInput, options?: GpuSamplingOptions): Promise<GpuTensor>;
  /** AffineGrid, 2-D (size [N, C, H, W]) and 3-D (size [N, C, D, H, W]). */
  affineGrid(theta: GpuInput, size: Dims, options?: GpuAffineGridOptions): Promise<GpuTensor>;
  /**
   * Multi-scale deformable attention (DESIGN.md section 12): the wasm API's
   * {@link GridSample.multiScaleDeformableAttention} (arguments, semantics, messages), one fused
   * kernel; y `[N, Lq, M * D]` of the value's dtype. float32 and float16 (value, locations and
   * weights, each) on the GPU, `pointsPerLevel` and `sampling` included, bfloat16 on the wasm
   * module. The levels stay on the CPU (their forms are {@link LevelTensor}'s); every argument
   * is checked before any GPU work.
   */
  multiScaleDeformableAttention(
    value: GpuInput,
    spatialShapes: LevelTensor,
    levelStartIndex: LevelTensor,
    samplingLocations: GpuInput,
    attentionWeights: GpuInput,
    options?: GpuDeformableAttentionOptions,
  ): Promise<GpuTensor>;
  /**
   * warpAffine on an interleaved uint8 or float32 image (DESIGN.md section 9, the wasm API's
   * semantics, options and messages), the result a GPU image; equal to the wasm build (uint8
   * bilinear, whose CPU blend is fixed point, within 1 level).
   */
  warpAffine(image: GpuImageArg, matrix: Theta, options?: GpuWarpOptions): Promise<GpuImage>;
  /** warpPerspective, as warpAffine. */
  warpPerspective(image: GpuImageArg, h: Homography, options?: GpuWarpOptions): Promise<GpuImage>;
  /** remap with float32 pixel maps on the GPU or the CPU (mapY null: mapX interleaved), as warpAffine. */
  remap(image: GpuImageArg, mapX: GpuPixelMap | PixelMap, mapY?: GpuPixelMap | PixelMap | null, options?: GpuRemapOptions): Promise<GpuImage>;
  /** A GPU image's pixels on the CPU (uint8 as a Uint8ClampedArray, ready for `new ImageData`). */
  read(image: GpuImageInput): Promise<{ data: Uint8ClampedArray | Float32Array; width: number; height: number; channels: number }>;
  /** A GPU tensor's elements on the CPU (float16 as Uint16Array bits, as the wasm API). */
  read(tensor: GpuTensorInput | OrtGpuTensorLike): Promise<{ data: TensorData; shape: number[]; dtype: DType }>;
  /** A CPU tensor copied to a new GPU tensor. */
  upload(source: TensorLike): GpuTensor;
  /** A CPU image copied to a new GPU image. */
  upload(source: ImageLike): GpuImage;
  /**
   * An RGBA uint8 GPU image of a GPUTexture (format rgba8unorm, COPY_SRC usage), an ImageBitmap,
   * a VideoFrame, a canvas, an OffscreenCanvas, a video or an image element, by GPU copies (rows
   * padded to 256 bytes: see `bytesPerRow`), ready for the warps.
   */
  importImage(source: object): Promise<GpuImage & { readonly bytesPerRow: number }>;
  /**
   * Submits the work of earlier calls now and resolves once the GPU has checked it, rejecting
   * with its first error. Calls on buffers bound before are batched without a GPU round trip:
   * their work is submitted when the task ends, every 64 calls, at read(), and before any
   * other work reaches the device's queue (yours and onnxruntime's); a GPU error of that work
   * rejects flush(), else the next call or read() once the GPU has reported it.
   */
  flush(): Promise<void>;
}

export function createGpu(options?: GpuOptions): Promise<Gpu>;
