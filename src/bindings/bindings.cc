// embind registration for the wasm module: thin adapters from heap pointers to the C++ API.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "api/validation.h"
#include "gridsample/gridsample.h"
#include "module_state.h"
#include "threads/parallel.h"

namespace gridsample {
namespace {

using bindings::LastMessage;
using bindings::ModuleThreads;
using bindings::Shape;
using bindings::ToCallStatus;

// Hands the message to JavaScript and clears it, so that no message stays allocated.
std::string TakeLastError() {
  std::string message;
  message.swap(LastMessage());
  return message;
}

// 1 to kMaxThreads threads; returns the count in use (always 1 in a build without threads).
int SetThreads(int count) {
#ifdef __EMSCRIPTEN_PTHREADS__
  ModuleThreads().count = count < 1 ? 1 : count > kMaxThreads ? kMaxThreads : count;
#else
  (void)count;
#endif
  return ModuleThreads().count;
}

GridSampleOptions Options(int mode, int padding, bool align_corners) {
  GridSampleOptions options;
  options.threads = ModuleThreads();
  options.mode = static_cast<Mode>(mode);
  options.padding = static_cast<Padding>(padding);
  options.align_corners = align_corners;
  return options;
}

// Every pointer below is a byte offset into the wasm heap chosen by the JS layer; shapes
// are int64 arrays there. The C++ API validates everything else.
int GridSampleAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape, int rank, uintptr_t grid,
                      int grid_dtype, uintptr_t grid_shape, uintptr_t y, uintptr_t y_shape,
                      int mode, int padding, bool align_corners) {
  const size_t r = static_cast<size_t>(rank);
  return ToCallStatus(GridSample(
      {reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), r},
      {reinterpret_cast<const void*>(grid), static_cast<DType>(grid_dtype), Shape(grid_shape), r},
      {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), r},
      Options(mode, padding, align_corners)));
}

// x (N, C, H, W) and flow (N, 2, Ho, Wo) of the ranks given (the library checks them), y of x's.
int WarpFlowAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape, int x_rank, uintptr_t flow,
                    uintptr_t flow_shape, int flow_rank, uintptr_t y, uintptr_t y_shape, int mode,
                    int padding, bool align_corners) {
  return ToCallStatus(
      WarpFlow({reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape),
                static_cast<size_t>(x_rank)},
               {reinterpret_cast<const void*>(flow), DType::kFloat32, Shape(flow_shape),
                static_cast<size_t>(flow_rank)},
               {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), 4},
               Options(mode, padding, align_corners)));
}

int AffineGridAdapter(uintptr_t theta, int dtype, uintptr_t theta_shape, int theta_rank,
                      uintptr_t size, int size_len, uintptr_t grid, uintptr_t grid_shape,
                      bool align_corners) {
  const size_t n = static_cast<size_t>(size_len);
  AffineGridOptions options;
  options.align_corners = align_corners;
  options.threads = ModuleThreads();
  return ToCallStatus(AffineGrid(
      {reinterpret_cast<const void*>(theta), static_cast<DType>(dtype), Shape(theta_shape),
       static_cast<size_t>(theta_rank)},
      Shape(size), n,
      {reinterpret_cast<void*>(grid), static_cast<DType>(dtype), Shape(grid_shape), n}, options));
}

// Channels-last tensors: x, grid and y are rank 4.
int GridSampleChannelsLastAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape, uintptr_t grid,
                                  int grid_dtype, uintptr_t grid_shape, uintptr_t y,
                                  uintptr_t y_shape, int mode, int padding, bool align_corners) {
  return ToCallStatus(GridSampleChannelsLast(
      {reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), 4},
      {reinterpret_cast<const void*>(grid), static_cast<DType>(grid_dtype), Shape(grid_shape), 4},
      {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), 4},
      Options(mode, padding, align_corners)));
}

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

ImageCall MakeImageCall(uintptr_t x, int x_dtype, uintptr_t x_shape, uintptr_t y, uintptr_t y_shape,
                        int mode, int padding, bool align_corners, int fill_count, double f0,
                        double f1, double f2, double f3) {
  return {{reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), 4},
          {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), 4},
          Options(mode, padding, align_corners),
          {{f0, f1, f2, f3}, fill_count}};
}

// A matrix argument (theta (N, 2, 3) or H (N, 3, 3)) of rank 3.
TensorView MatrixView(uintptr_t m, int m_dtype, uintptr_t m_shape) {
  return {reinterpret_cast<const void*>(m), static_cast<DType>(m_dtype), Shape(m_shape), 3};
}

// A float32 map argument: one interleaved map (N, Ho, Wo, 2) of rank 4, or a plane (N, Ho, Wo).
TensorView MapView(uintptr_t map, uintptr_t map_shape, size_t rank) {
  return {reinterpret_cast<const void*>(map), DType::kFloat32, Shape(map_shape), rank};
}

using MatrixWarp = Status (*)(const TensorView&, const TensorView&, const MutableTensorView&,
                              const GridSampleOptions&, const double*);
using MatrixWarpRows = Status (*)(const TensorView&, const TensorView&, const MutableTensorView&,
                                  const OutputRows&, const GridSampleOptions&, const double*);
using PlanesWarp = Status (*)(const TensorView&, const TensorView&, const TensorView&,
                              const MutableTensorView&, const GridSampleOptions&, const double*);

// A warp by a matrix (WarpAffine, WarpPerspective) of the whole output. The bodies take the
// warp as a pointer and the templates below only name it: one body per kind in the download.
[[gnu::noinline]] int RunWarp(MatrixWarp warp, uintptr_t x, int x_dtype, uintptr_t x_shape,
                              uintptr_t m, int m_dtype, uintptr_t m_shape, uintptr_t y,
                              uintptr_t y_shape, int mode, int padding, bool align_corners,
                              int fill_count, double f0, double f1, double f2, double f3) {
  const ImageCall c = MakeImageCall(x, x_dtype, x_shape, y, y_shape, mode, padding, align_corners,
                                    fill_count, f0, f1, f2, f3);
  return ToCallStatus(warp(c.x, MatrixView(m, m_dtype, m_shape), c.y, c.options, c.fill.get()));
}

// The same for y, the band of rows from rows_begin of an output rows_height high.
[[gnu::noinline]] int RunWarpRows(MatrixWarpRows warp, uintptr_t x, int x_dtype, uintptr_t x_shape,
                                  uintptr_t m, int m_dtype, uintptr_t m_shape, uintptr_t y,
                                  uintptr_t y_shape, int mode, int padding, bool align_corners,
                                  double rows_height, double rows_begin, int fill_count, double f0,
                                  double f1, double f2, double f3) {
  const ImageCall c = MakeImageCall(x, x_dtype, x_shape, y, y_shape, mode, padding, align_corners,
                                    fill_count, f0, f1, f2, f3);
  const OutputRows rows{static_cast<int64_t>(rows_height), static_cast<int64_t>(rows_begin)};
  return ToCallStatus(
      warp(c.x, MatrixView(m, m_dtype, m_shape), c.y, rows, c.options, c.fill.get()));
}

// A warp by one interleaved map (Remap) or flow (WarpFlowChannelsLast), (N, Ho, Wo, 2).
[[gnu::noinline]] int RunMapWarp(MatrixWarp warp, uintptr_t x, int x_dtype, uintptr_t x_shape,
                                 uintptr_t map, uintptr_t map_shape, uintptr_t y, uintptr_t y_shape,
                                 int mode, int padding, bool align_corners, int fill_count,
                                 double f0, double f1, double f2, double f3) {
  const ImageCall c = MakeImageCall(x, x_dtype, x_shape, y, y_shape, mode, padding, align_corners,
                                    fill_count, f0, f1, f2, f3);
  return ToCallStatus(warp(c.x, MapView(map, map_shape, 4), c.y, c.options, c.fill.get()));
}

// The same by two planes (N, Ho, Wo) of one shape: x then y positions, or dx then dy.
[[gnu::noinline]] int RunPlanesWarp(PlanesWarp warp, uintptr_t x, int x_dtype, uintptr_t x_shape,
                                    uintptr_t map_x, uintptr_t map_y, uintptr_t map_shape,
                                    uintptr_t y, uintptr_t y_shape, int mode, int padding,
                                    bool align_corners, int fill_count, double f0, double f1,
                                    double f2, double f3) {
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

// The rules JS asks for instead of repeating them: output shapes (GridSample's of shapes only;
// the NCHW flow's and channels-last grid's of shapes and dtypes; data is checked by the call
// itself) and the enum codes of mode, padding and dtype names.

int GridSampleOutputShapeAdapter(uintptr_t x_shape, int x_rank, uintptr_t grid_shape, int grid_rank,
                                 uintptr_t y_shape) {
  TensorView x;
  x.shape = Shape(x_shape);
  x.rank = static_cast<size_t>(x_rank);
  TensorView grid;
  grid.shape = Shape(grid_shape);
  grid.rank = static_cast<size_t>(grid_rank);
  return ToCallStatus(GridSampleOutputShape(x, grid, reinterpret_cast<int64_t*>(y_shape)));
}

// X and its coordinates (the flow, the grid) of the ranks and dtypes given, rank 4 out.
template <Status (*kQuery)(const TensorView&, const TensorView&, int64_t*)>
int OutputShapeAdapter(uintptr_t x_shape, int x_rank, int x_dtype, uintptr_t coords_shape,
                       int coords_rank, int coords_dtype, uintptr_t y_shape) {
  return ToCallStatus(
      kQuery({nullptr, static_cast<DType>(x_dtype), Shape(x_shape), static_cast<size_t>(x_rank)},
             {nullptr, static_cast<DType>(coords_dtype), Shape(coords_shape),
              static_cast<size_t>(coords_rank)},
             reinterpret_cast<int64_t*>(y_shape)));
}

bool GridSampleFoldsTapsAdapter(uintptr_t x_shape, int x_rank, int x_dtype, int mode) {
  return GridSampleFoldsTaps(Shape(x_shape), static_cast<size_t>(x_rank),
                             static_cast<DType>(x_dtype), static_cast<Mode>(mode));
}

bool ChannelsLastFoldsTapsAdapter(double height, double width, int channels, int dtype, int mode) {
  return ChannelsLastFoldsTaps(static_cast<int64_t>(height), static_cast<int64_t>(width), channels,
                               static_cast<DType>(dtype), static_cast<Mode>(mode));
}

std::string ModeNameAdapter(int mode) { return ModeName(static_cast<Mode>(mode)); }
std::string PaddingNameAdapter(int padding) { return PaddingName(static_cast<Padding>(padding)); }

int AffineGridOutputShapeAdapter(uintptr_t size, int size_len, uintptr_t grid_shape) {
  return ToCallStatus(AffineGridOutputShape(Shape(size), static_cast<size_t>(size_len),
                                            reinterpret_cast<int64_t*>(grid_shape)));
}

// The enum's value for `name`, or -1 with the parser's message kept for takeLastError.
template <typename Enum>
int CodeOf(const Status& s, Enum value) {
  if (!s.ok()) {
    ToCallStatus(s);
    return -1;
  }
  return static_cast<int>(value);
}

int ParseModeAdapter(const std::string& name) {
  Mode mode = Mode::kLinear;
  const Status s = ParseMode(name, &mode);
  return CodeOf(s, mode);
}

int ParsePaddingAdapter(const std::string& name) {
  Padding padding = Padding::kZeros;
  const Status s = ParsePadding(name, &padding);
  return CodeOf(s, padding);
}

int ParseDTypeAdapter(const std::string& name) {
  DType dtype = DType::kFloat32;
  const Status s = ParseDType(name, &dtype);
  return CodeOf(s, dtype);
}

// 0 when the heap cannot grow that far; the JS layer turns that into a RangeError.
uintptr_t Allocate(double bytes) {
  if (!(bytes >= 0) || bytes > 4294967295.0) return 0;
  return reinterpret_cast<uintptr_t>(std::malloc(static_cast<size_t>(bytes ? bytes : 1)));
}

void Release(uintptr_t p) { std::free(reinterpret_cast<void*>(p)); }

// Bytes in use by malloc: flat across calls when nothing leaks.
double HeapUsed() { return static_cast<double>(mallinfo().uordblks); }

std::string Target() { return ActiveTarget(); }

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample) {
  using namespace emscripten;
  using namespace gridsample;
  function("gridSample", &GridSampleAdapter);
  function("affineGrid", &AffineGridAdapter);
  function("warpFlow", &WarpFlowAdapter);
  function("gridSampleChannelsLast", &GridSampleChannelsLastAdapter);
  function("warpAffine", &Bind<&RunWarp, &WarpAffine>::Call);
  function("warpAffineRows", &Bind<&RunWarpRows, &WarpAffineRows>::Call);
  function("warpPerspective", &Bind<&RunWarp, &WarpPerspective>::Call);
  function("warpPerspectiveRows", &Bind<&RunWarpRows, &WarpPerspectiveRows>::Call);
  function("remap", &Bind<&RunMapWarp, static_cast<MatrixWarp>(&Remap)>::Call);
  function("remapPlanes", &Bind<&RunPlanesWarp, static_cast<PlanesWarp>(&Remap)>::Call);
  function("warpFlowImage",
           &Bind<&RunMapWarp, static_cast<MatrixWarp>(&WarpFlowChannelsLast)>::Call);
  function("warpFlowImagePlanes",
           &Bind<&RunPlanesWarp, static_cast<PlanesWarp>(&WarpFlowChannelsLast)>::Call);
  function("gridSampleOutputShape", &GridSampleOutputShapeAdapter);
  function("affineGridOutputShape", &AffineGridOutputShapeAdapter);
  function("warpFlowOutputShape", &OutputShapeAdapter<&WarpFlowOutputShape>);
  function("gridSampleChannelsLastOutputShape",
           &OutputShapeAdapter<&GridSampleChannelsLastOutputShape>);
  function("gridSampleFoldsTaps", &GridSampleFoldsTapsAdapter);
  function("channelsLastFoldsTaps", &ChannelsLastFoldsTapsAdapter);
  function("modeName", &ModeNameAdapter);
  function("paddingName", &PaddingNameAdapter);
  function("parseMode", &ParseModeAdapter);
  function("parsePadding", &ParsePaddingAdapter);
  function("parseDType", &ParseDTypeAdapter);
  function("allocate", &Allocate);
  function("release", &Release);
  function("heapUsed", &HeapUsed);
  function("takeLastError", &TakeLastError);
  function("activeTarget", &Target);
  function("setThreads", &SetThreads);
}
