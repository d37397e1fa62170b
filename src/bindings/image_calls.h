// What the image warps' embind files share: fill colour, views, one body per kind of warp call.
#ifndef GRIDSAMPLE_BINDINGS_IMAGE_CALLS_H_
#define GRIDSAMPLE_BINDINGS_IMAGE_CALLS_H_

#include <cstddef>
#include <cstdint>

#include "gridsample/warp_affine.h"
#include "module_state.h"

namespace gridsample::bindings {

// The image warps' fill colour (channels 1 to 4, as the image helpers take): `count` values
// of f, or none when count is 0.
struct FillArg {
  double values[4];
  int count;
  const double* get() const { return count ? values : nullptr; }
};

// A call on channels-last images: x and y (N, H, W, C) / (N, Ho, Wo, C), its options, and the
// fill colour (fill_count 0, or C values f0..f3).
struct ImageCall {
  TensorView x;
  MutableTensorView y;
  GridSampleOptions options;
  FillArg fill;
};

inline ImageCall MakeImageCall(uintptr_t x, int x_dtype, uintptr_t x_shape, uintptr_t y,
                               uintptr_t y_shape, int mode, int padding, bool align_corners,
                               int fill_count, double f0, double f1, double f2, double f3) {
  return {{reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), 4},
          {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), 4},
          SamplingOptions(mode, padding, align_corners),
          {{f0, f1, f2, f3}, fill_count}};
}

// A matrix argument (theta (N, 2, 3) or H (N, 3, 3)) of rank 3.
inline TensorView MatrixView(uintptr_t m, int m_dtype, uintptr_t m_shape) {
  return {reinterpret_cast<const void*>(m), static_cast<DType>(m_dtype), Shape(m_shape), 3};
}

// A float32 map argument: one interleaved map (N, Ho, Wo, 2) of rank 4, or a plane (N, Ho, Wo).
inline TensorView MapView(uintptr_t map, uintptr_t map_shape, size_t rank) {
  return {reinterpret_cast<const void*>(map), DType::kFloat32, Shape(map_shape), rank};
}

using MapWarp = Status (*)(const TensorView&, const TensorView&, const MutableTensorView&,
                           const GridSampleOptions&, const double*);
using MatrixWarp = Status (*)(const TensorView&, const TensorView&, const MutableTensorView&,
                              const GridSampleOptions&, const double*, MatrixSpace);
using MatrixWarpRows = Status (*)(const TensorView&, const TensorView&, const MutableTensorView&,
                                  const OutputRows&, const GridSampleOptions&, const double*,
                                  MatrixSpace);
using PlanesWarp = Status (*)(const TensorView&, const TensorView&, const TensorView&,
                              const MutableTensorView&, const GridSampleOptions&, const double*);

// A warp by a matrix (WarpAffine, WarpPerspective) in `space` (MatrixSpace's code) of the whole
// output. The bodies take the warp as a pointer and the templates below only name it: one body
// per kind in the download (inline: one copy however many embind files use it).
[[gnu::noinline]] inline int RunWarp(MatrixWarp warp, uintptr_t x, int x_dtype, uintptr_t x_shape,
                                     uintptr_t m, int m_dtype, uintptr_t m_shape, int space,
                                     uintptr_t y, uintptr_t y_shape, int mode, int padding,
                                     bool align_corners, int fill_count, double f0, double f1,
                                     double f2, double f3) {
  const ImageCall c = MakeImageCall(x, x_dtype, x_shape, y, y_shape, mode, padding, align_corners,
                                    fill_count, f0, f1, f2, f3);
  return ToCallStatus(warp(c.x, MatrixView(m, m_dtype, m_shape), c.y, c.options, c.fill.get(),
                           static_cast<MatrixSpace>(space)));
}

// The same for y, the band of rows from rows_begin of an output rows_height high.
[[gnu::noinline]] inline int RunWarpRows(MatrixWarpRows warp, uintptr_t x, int x_dtype,
                                         uintptr_t x_shape, uintptr_t m, int m_dtype,
                                         uintptr_t m_shape, int space, uintptr_t y,
                                         uintptr_t y_shape, int mode, int padding,
                                         bool align_corners, double rows_height, double rows_begin,
                                         int fill_count, double f0, double f1, double f2,
                                         double f3) {
  const ImageCall c = MakeImageCall(x, x_dtype, x_shape, y, y_shape, mode, padding, align_corners,
                                    fill_count, f0, f1, f2, f3);
  const OutputRows rows{static_cast<int64_t>(rows_height), static_cast<int64_t>(rows_begin)};
  return ToCallStatus(warp(c.x, MatrixView(m, m_dtype, m_shape), c.y, rows, c.options, c.fill.get(),
                           static_cast<MatrixSpace>(space)));
}

// A warp by one interleaved map (Remap) or flow (WarpFlowChannelsLast), (N, Ho, Wo, 2).
[[gnu::noinline]] inline int RunMapWarp(MapWarp warp, uintptr_t x, int x_dtype, uintptr_t x_shape,
                                        uintptr_t map, uintptr_t map_shape, uintptr_t y,
                                        uintptr_t y_shape, int mode, int padding,
                                        bool align_corners, int fill_count, double f0, double f1,
                                        double f2, double f3) {
  const ImageCall c = MakeImageCall(x, x_dtype, x_shape, y, y_shape, mode, padding, align_corners,
                                    fill_count, f0, f1, f2, f3);
  return ToCallStatus(warp(c.x, MapView(map, map_shape, 4), c.y, c.options, c.fill.get()));
}

// The same by two planes (N, Ho, Wo) of one shape: x then y positions, or dx then dy.
[[gnu::noinline]] inline int RunPlanesWarp(PlanesWarp warp, uintptr_t x, int x_dtype,
                                           uintptr_t x_shape, uintptr_t map_x, uintptr_t map_y,
                                           uintptr_t map_shape, uintptr_t y, uintptr_t y_shape,
                                           int mode, int padding, bool align_corners,
                                           int fill_count, double f0, double f1, double f2,
                                           double f3) {
  const ImageCall c = MakeImageCall(x, x_dtype, x_shape, y, y_shape, mode, padding, align_corners,
                                    fill_count, f0, f1, f2, f3);
  return ToCallStatus(warp(c.x, MapView(map_x, map_shape, 3), MapView(map_y, map_shape, 3), c.y,
                           c.options, c.fill.get()));
}

// A binding: its kind's body (kRun) with the warp (kWarp) named, taking the body's other
// arguments.
template <auto kRun, auto kWarp>
struct Bind;
template <class Warp, class... Args, int (*kRun)(Warp, Args...), Warp kWarp>
struct Bind<kRun, kWarp> {
  static int Call(Args... args) { return kRun(kWarp, args...); }
};

}  // namespace gridsample::bindings

#endif  // GRIDSAMPLE_BINDINGS_IMAGE_CALLS_H_
