// embind registration of the warps' matrices (gridsample/matrices.h): a warp's pixel homography
// and OpenCV's rotation and four-point builders, on doubles at heap addresses.
#include <emscripten/bind.h>

#include <cstdint>
#include <string>

#include "api/matrices_internal.h"
#include "call_block.h"
#include "module_state.h"

namespace gridsample::bindings {
namespace {

double* Doubles(uintptr_t p) { return reinterpret_cast<double*>(p); }

// PixelHomography's numbers, as JS writes them (doubles at one heap address,
// js/images/matrices.mjs): m's rows, the space (MatrixSpace's code), the sides, align_corners.
struct HomographyArgs {
  double rows, space, in_h, in_w, out_h, out_w, align_corners;
};

// H (nine doubles at h) of the matrix of `rows` x 3 doubles at m as the arguments at `args` say,
// its messages naming m `name` and the output-to-input option `inverse_option` (the caller's
// words: the JS API's, the command line's).
int PixelHomographyAt(uintptr_t m, uintptr_t args, uintptr_t h, const std::string& name,
                      const std::string& inverse_option) {
  const auto& a = *reinterpret_cast<const HomographyArgs*>(args);
  const WarpSides sides{static_cast<int64_t>(a.in_h), static_cast<int64_t>(a.in_w),
                        static_cast<int64_t>(a.out_h), static_cast<int64_t>(a.out_w)};
  return ToCallStatus(PixelHomographyIn(
      Doubles(m), static_cast<int>(a.rows), static_cast<MatrixSpace>(static_cast<int>(a.space)),
      sides, a.align_corners != 0, Doubles(h), name.c_str(), inverse_option.c_str()));
}

// The JS API's words for the warps' messages (ModuleMatrixWords, call_block.h): the matrix's
// name of warpAffine and warpPerspective in normalised and in pixel space, and the inverse option.
void SetMatrixWords(const std::string& affine_normalized, const std::string& affine_pixel,
                    const std::string& perspective_normalized, const std::string& perspective_pixel,
                    const std::string& inverse_option) {
  MatrixWords& words = ModuleMatrixWords();
  words.names[0][0] = affine_normalized;
  words.names[0][1] = affine_pixel;
  words.names[1][0] = perspective_normalized;
  words.names[1][1] = perspective_pixel;
  words.inverse_option = inverse_option;
  words.given = true;
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
  emscripten::function("setMatrixWords", &SetMatrixWords);
  emscripten::function("rotationMatrix", &RotationMatrixAt);
  emscripten::function("perspectiveTransform", &PerspectiveTransformAt);
}
