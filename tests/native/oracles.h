// Oracles of the fast-path tests and fuzzers: each operator's output by the scalar reference.
#ifndef GRIDSAMPLE_TESTS_NATIVE_ORACLES_H_
#define GRIDSAMPLE_TESTS_NATIVE_ORACLES_H_

#include <cstdint>
#include <vector>

#include "gridsample/grid_sample.h"
#include "gridsample/types.h"
#include "reference/reference.h"
#include "rules/perspective_rule.h"
#include "test_tensor.h"

namespace gridsample_test {

using gridsample::GridSampleOptions;
using gridsample::Status;

// The (N, Ho, Wo, 2) float32 map of WarpPerspective's input pixel positions for H (N, 3, 3):
// perspective_rule.h's values, stored (that rule is tested against the exact projection in
// warp_perspective_rule_test.cc), for Remap to sample.
inline Tensor PerspectivePositions(const Tensor& h, int64_t ho, int64_t wo) {
  const int64_t n = h.shape()[0];
  Tensor map(DType::kFloat32, {n, ho, wo, 2});
  for (int64_t b = 0; b < n; ++b) {
    double m[9];
    for (int k = 0; k < 9; ++k) m[k] = h.Get(b * 9 + k);
    const gridsample::PerspectiveMap pm = gridsample::PerspectiveMapOf(m);
    for (int64_t i = 0; i < ho; ++i) {
      const gridsample::PerspectiveTerms terms = gridsample::PerspectiveRowTerms(pm, i);
      for (int64_t j = 0; j < wo; ++j) {
        float x, y;
        gridsample::PerspectiveCoordinates(terms, j, &x, &y);
        const int64_t at = ((b * ho + i) * wo + j) * 2;
        map.Set(at, x);
        map.Set(at + 1, y);
      }
    }
  }
  return map;
}

// Remap's output by the scalar reference (pixel_rule.h; the fast paths' oracle), for an
// interleaved map (N, Ho, Wo, 2), or planes map_x and map_y (N, Ho, Wo) when map_y is given, on
// X (N, H, W, C). The reference itself is checked against exact arithmetic in
// pixel_rule_test.cc (PixelRule).
inline Status ReferenceRemap(const Tensor& x, const Tensor& map_x, const Tensor* map_y,
                             const GridSampleOptions& o, Tensor* y) {
  const std::vector<int64_t>& s = map_x.shape();
  *y = Tensor(x.dtype(), {s[0], s[1], s[2], x.shape()[3]});
  if (map_y == nullptr)
    return gridsample::reference::Remap(x.View(), map_x.View(), y->MutableView(), o);
  return gridsample::reference::Remap(x.View(), map_x.View(), map_y->View(), y->MutableView(), o);
}

// WarpFlow's output by the scalar reference, for a flow (N, 2, Ho, Wo) on X (N, C, H, W).
inline Status ReferenceWarpFlow(const Tensor& x, const Tensor& flow, const GridSampleOptions& o,
                                Tensor* y) {
  const std::vector<int64_t>& s = flow.shape();
  *y = Tensor(x.dtype(), {s[0], x.shape()[1], s[2], s[3]});
  return gridsample::reference::WarpFlow(x.View(), flow.View(), y->MutableView(), o);
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_ORACLES_H_
