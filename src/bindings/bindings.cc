// embind registration for the wasm module: thin adapters from heap pointers to the C++ API.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "gridsample/gridsample.h"

namespace gridsample {
namespace {

// The message of the last call that failed. Calls return only the status code: a successful
// call allocates nothing here, so it cannot fail for want of heap (the JS layer makes sure
// there is room for a message before each call, see ensureHeadroom in js/core.mjs).
std::string& LastMessage() {
  static std::string message;
  return message;
}

int ToCallStatus(const Status& s) {
  if (s.ok()) return 0;
  LastMessage() = s.message();
  return static_cast<int>(s.code());
}

// Hands the message to JavaScript and clears it, so that no message stays allocated.
std::string TakeLastError() {
  std::string message;
  message.swap(LastMessage());
  return message;
}

const int64_t* Shape(uintptr_t p) { return reinterpret_cast<const int64_t*>(p); }

// Every pointer below is a byte offset into the wasm heap chosen by the JS layer; shapes
// are int64 arrays there. The C++ API validates everything else.
int GridSampleAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape, int rank, uintptr_t grid,
                      int grid_dtype, uintptr_t grid_shape, uintptr_t y,
                      uintptr_t y_shape, int mode, int padding, bool align_corners) {
  const size_t r = static_cast<size_t>(rank);
  GridSampleOptions options;
  options.mode = static_cast<Mode>(mode);
  options.padding = static_cast<Padding>(padding);
  options.align_corners = align_corners;
  return ToCallStatus(GridSample(
      {reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), r},
      {reinterpret_cast<const void*>(grid), static_cast<DType>(grid_dtype), Shape(grid_shape), r},
      {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), r}, options));
}

int AffineGridAdapter(uintptr_t theta, int dtype, uintptr_t theta_shape, uintptr_t size,
                      int size_len, uintptr_t grid, uintptr_t grid_shape,
                      bool align_corners) {
  const size_t n = static_cast<size_t>(size_len);
  AffineGridOptions options;
  options.align_corners = align_corners;
  return ToCallStatus(AffineGrid(
      {reinterpret_cast<const void*>(theta), static_cast<DType>(dtype), Shape(theta_shape), 3},
      Shape(size), n, {reinterpret_cast<void*>(grid), static_cast<DType>(dtype), Shape(grid_shape), n},
      options));
}

GridSampleOptions Options(int mode, int padding, bool align_corners) {
  GridSampleOptions options;
  options.mode = static_cast<Mode>(mode);
  options.padding = static_cast<Padding>(padding);
  options.align_corners = align_corners;
  return options;
}

// Channels-last tensors: x, grid and y are rank 4.
int GridSampleChannelsLastAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape,
                                  uintptr_t grid, int grid_dtype, uintptr_t grid_shape,
                                  uintptr_t y, uintptr_t y_shape, int mode, int padding,
                                  bool align_corners) {
  return ToCallStatus(GridSampleChannelsLast(
      {reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), 4},
      {reinterpret_cast<const void*>(grid), static_cast<DType>(grid_dtype), Shape(grid_shape), 4},
      {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), 4},
      Options(mode, padding, align_corners)));
}

// x and y (N, H, W, C) / (N, Ho, Wo, C), theta (N, 2, 3).
int WarpAffineAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape, uintptr_t theta,
                      int theta_dtype, uintptr_t theta_shape, uintptr_t y, uintptr_t y_shape,
                      int mode, int padding, bool align_corners) {
  return ToCallStatus(WarpAffine(
      {reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), 4},
      {reinterpret_cast<const void*>(theta), static_cast<DType>(theta_dtype), Shape(theta_shape), 3},
      {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), 4},
      Options(mode, padding, align_corners)));
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
  function("gridSampleChannelsLast", &GridSampleChannelsLastAdapter);
  function("warpAffine", &WarpAffineAdapter);
  function("allocate", &Allocate);
  function("release", &Release);
  function("heapUsed", &HeapUsed);
  function("takeLastError", &TakeLastError);
  function("activeTarget", &Target);
}
