// What the wasm modules' embind files share: the last error, threads, the warps' words for their
// matrices, sampling options, shape queries.
#ifndef GRIDSAMPLE_BINDINGS_MODULE_STATE_H_
#define GRIDSAMPLE_BINDINGS_MODULE_STATE_H_

#include <cstdint>
#include <string>

#include "gridsample/grid_sample.h"
#include "gridsample/threads.h"
#include "gridsample/types.h"

// Inline functions, so that each static below is one object however many files include this.
namespace gridsample::bindings {

// The message of the last call that failed. Calls return only the status code: a successful
// call allocates nothing here, so it cannot fail for want of heap (the JS layer makes sure
// there is room for a message before each call, see ensureHeadroom in js/core/wasm_heap.mjs).
inline std::string& LastMessage() {
  static std::string message;
  return message;
}

inline int ToCallStatus(const Status& s) {
  if (s.ok()) return 0;
  LastMessage() = s.message();
  return static_cast<int>(s.code());
}

// Threads every call of this module may use (the library's pool): set once by load() in the
// threaded build (setThreads in bindings.cc), 1 otherwise.
inline Threads& ModuleThreads() {
  static Threads threads;
  return threads;
}

// How the JS API names the warps' matrix (per warp and space) and the option that gives a
// pixel-space matrix as the output-to-input map: js/images/warps.mjs's words, given once per
// module (setMatrixWords, matrices_bindings.cc); until then the library's own.
struct MatrixWords {
  bool given = false;
  std::string names[2][2];  // [warpPerspective][pixel space]
  std::string inverse_option;
};
inline MatrixWords& ModuleMatrixWords() {
  static MatrixWords words;
  return words;
}

// A sampling call's options as the JS layer passes them (enum codes the library checks), with the
// module's threads.
inline GridSampleOptions SamplingOptions(int mode, int padding, bool align_corners) {
  GridSampleOptions options;
  options.threads = ModuleThreads();
  options.mode = static_cast<Mode>(mode);
  options.padding = static_cast<Padding>(padding);
  options.align_corners = align_corners;
  return options;
}

// Every pointer the JS layer passes is a byte offset into the wasm heap; shapes are int64
// arrays there.
inline const int64_t* Shape(uintptr_t p) { return reinterpret_cast<const int64_t*>(p); }

// An output-shape query of X and its coordinates (a flow, a grid) of the ranks and dtypes given
// (data is checked by the call itself): Y's rank 4 shape written at y_shape, or the error.
template <Status (*kQuery)(const TensorView&, const TensorView&, int64_t*)>
int ShapeQuery(uintptr_t x_shape, int x_rank, int x_dtype, uintptr_t coords_shape, int coords_rank,
               int coords_dtype, uintptr_t y_shape) {
  return ToCallStatus(
      kQuery({nullptr, static_cast<DType>(x_dtype), Shape(x_shape), static_cast<size_t>(x_rank)},
             {nullptr, static_cast<DType>(coords_dtype), Shape(coords_shape),
              static_cast<size_t>(coords_rank)},
             reinterpret_cast<int64_t*>(y_shape)));
}

}  // namespace gridsample::bindings

#endif  // GRIDSAMPLE_BINDINGS_MODULE_STATE_H_
