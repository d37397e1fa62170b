// embind registration of the warps' matrices (gridsample/matrices.h): a warp's pixel homography
// and OpenCV's rotation and four-point builders, on doubles at heap addresses.
#include <emscripten/bind.h>

#include <cstdint>

#include "gridsample/matrices.h"
#include "module_state.h"

namespace gridsample::bindings {
namespace {

double* Doubles(uintptr_t p) { return reinterpret_cast<double*>(p); }

// H (nine doubles at h) of the matrix of `rows` x 3 doubles at m in `space` (MatrixSpace's code),
// its messages naming m as the C++ API does (M, or H for rows 3).
int PixelHomographyAt(uintptr_t m, int rows, int space, double in_h, double in_w, double out_h,
                      double out_w, bool align_corners, uintptr_t h) {
  const WarpSides sides{static_cast<int64_t>(in_h), static_cast<int64_t>(in_w),
                        static_cast<int64_t>(out_h), static_cast<int64_t>(out_w)};
  return ToCallStatus(PixelHomography(Doubles(m), rows, static_cast<MatrixSpace>(space), sides,
                                      align_corners, Doubles(h), rows == 3 ? "H" : "M"));
}

int RotationMatrixAt(double cx, double cy, double angle_deg, double scale, uintptr_t m) {
  return ToCallStatus(RotationMatrix(cx, cy, angle_deg, scale, Doubles(m)));
}

int PerspectiveTransformAt(uintptr_t src, uintptr_t dst, uintptr_t h) {
  return ToCallStatus(PerspectiveTransform(Doubles(src), Doubles(dst), Doubles(h)));
}

}  // namespace
}  // namespace gridsample::bindings

EMSCRIPTEN_BINDINGS(gridsample_matrices) {
  using namespace gridsample::bindings;
  emscripten::function("pixelHomography", &PixelHomographyAt);
  emscripten::function("rotationMatrix", &RotationMatrixAt);
  emscripten::function("perspectiveTransform", &PerspectiveTransformAt);
}
