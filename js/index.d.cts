// TypeScript declarations of the gridsample package for CommonJS (require) consumers: the same API as index.d.ts.
import type * as gridsample from './index.js';

declare namespace gridsample_cjs {
  /** Element type names (see index.d.ts). */
  type DType = gridsample.DType;
  /** Element types of a grid or theta. */
  type FloatDType = gridsample.FloatDType;
  /** The typed array of each dtype. */
  type DataTypeMap = gridsample.DataTypeMap;
  /** Any typed array the library reads or writes. */
  type TensorData = gridsample.TensorData;
  /** Dimensions: non-negative safe integers or bigints. */
  type Dims = gridsample.Dims;
  /** A tensor argument: `{data, shape}` or `{data, dims}` (onnxruntime-web tensors too). */
  type TensorLike = gridsample.TensorLike;
  /** A result: `{data, shape, dtype}`. */
  type Tensor<D extends DType = DType> = gridsample.Tensor<D>;
  /** The dtype a tensor argument stands for. */
  type DTypeOf<T> = gridsample.DTypeOf<T>;
  /** Interpolation mode, both ONNX spellings. */
  type Mode = gridsample.Mode;
  /** ONNX padding_mode values. */
  type PaddingMode = gridsample.PaddingMode;
  /** ONNX align_corners: boolean or 0 / 1. */
  type AlignCorners = gridsample.AlignCorners;
  /** Where a result may be written. */
  type Out = gridsample.Out;
  /** Options of gridSample. */
  type GridSampleOptions = gridsample.GridSampleOptions;
  /** Options of affineGrid. */
  type AffineGridOptions = gridsample.AffineGridOptions;
  /** AffineGrid's size argument. */
  type Size = gridsample.Size;
  /** A tensor in the wasm heap (the zero-copy tier). */
  type HeapTensor<D extends DType = DType> = gridsample.HeapTensor<D>;
  /** Pixel data of an 8-bit image. */
  type ImageData8 = gridsample.ImageData8;
  /** Pixel data of an image. */
  type ImageDataArray = gridsample.ImageDataArray;
  /** An interleaved image argument: `{data, width, height, channels?}` (ImageData works). */
  type ImageLike<A extends ImageDataArray = ImageDataArray> = gridsample.ImageLike<A>;
  /** What warpAffine returns: `{data, width, height, channels}`. */
  type Image<A extends ImageDataArray = ImageDataArray> = gridsample.Image<A>;
  /** The pixel array class an image argument gives back. */
  type ImageDataOf<I> = gridsample.ImageDataOf<I>;
  /** warpAffine's theta: the 2x3 matrix as 6 numbers. */
  type Theta = gridsample.Theta;
  /** Options of warpAffine. */
  type WarpAffineOptions = gridsample.WarpAffineOptions;
  /** The loaded module that load() resolves to. */
  type GridSample = gridsample.GridSample;
  /** Options of load(). */
  type LoadOptions = gridsample.LoadOptions;
}

declare const gridsample_cjs: {
  /** Loads and instantiates gridsample (see the ES module declarations). */
  load: typeof gridsample.load;
  /** True when this JavaScript engine validates wasm SIMD128 code. */
  simdSupported: typeof gridsample.simdSupported;
  /** Every dtype name, in the library's order. */
  DTYPE_NAMES: typeof gridsample.DTYPE_NAMES;
};

export = gridsample_cjs;
