// Oracles of the fast-path tests and fuzzers: each operator's output by the scalar reference.
#ifndef GRIDSAMPLE_TESTS_NATIVE_ORACLES_H_
#define GRIDSAMPLE_TESTS_NATIVE_ORACLES_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "api/reference_calls.h"
#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/types.h"
#include "gtest/gtest.h"
#include "rules/perspective_rule.h"
#include "test_tensor.h"

namespace gridsample_test {

using gridsample::AffineGridOptions;
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

// ---------------------------------------------------------------------------
// Oracles for the channels-last operators: the NCHW reference on transposed tensors.

// (N, A, B, C) -> (N, C, A, B) when to_channels_first, else back; byte for byte (exact for
// every dtype).
inline Tensor Transposed(const Tensor& t, bool to_channels_first) {
  const std::vector<int64_t>& s = t.shape();
  const int64_t n = s[0], c = to_channels_first ? s[3] : s[1];
  const int64_t a = to_channels_first ? s[1] : s[2], b = to_channels_first ? s[2] : s[3];
  Tensor out(t.dtype(), to_channels_first ? std::vector<int64_t>{n, c, a, b}
                                          : std::vector<int64_t>{n, a, b, c});
  const size_t e = ElementSize(t.dtype());
  const auto* src = static_cast<const uint8_t*>(t.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < a * b; ++p) {
      for (int64_t k = 0; k < c; ++k) {
        const int64_t last = (i * a * b + p) * c + k, first = (i * c + k) * a * b + p;
        const int64_t from = to_channels_first ? last : first;
        const int64_t to = to_channels_first ? first : last;
        std::memcpy(dst + to * e, src + from * e, e);
      }
    }
  }
  return out;
}

// GridSample on X (N, H, W, C) through the NCHW reference.
inline Tensor OracleGridSample(const Tensor& x, const Tensor& grid, const GridSampleOptions& o) {
  const Tensor xc = Transposed(x, true);
  Tensor yc(x.dtype(), {x.shape()[0], x.shape()[3], grid.shape()[1], grid.shape()[2]});
  const Status s = gridsample::reference::GridSample(xc.View(), grid.View(), yc.MutableView(), o);
  EXPECT_TRUE(s.ok()) << s.message();
  return Transposed(yc, false);
}

// The reference grid of AffineGrid(theta, (N, C, Ho, Wo)).
inline Tensor OracleAffineGrid(const Tensor& theta, int64_t c, int64_t ho, int64_t wo, bool align) {
  const int64_t size[4] = {theta.shape()[0], c, ho, wo};
  Tensor grid(theta.dtype(), {theta.shape()[0], ho, wo, 2});
  const Status s = gridsample::reference::AffineGrid(theta.View(), size, 4, grid.MutableView(),
                                                     AffineGridOptions{align, {}});
  EXPECT_TRUE(s.ok()) << s.message();
  return grid;
}

// WarpAffine's meaning: AffineGrid + GridSample with one align_corners.
inline Tensor OracleWarpAffine(const Tensor& x, const Tensor& theta, int64_t ho, int64_t wo,
                               const GridSampleOptions& o) {
  return OracleGridSample(x, OracleAffineGrid(theta, x.shape()[3], ho, wo, o.align_corners), o);
}

// WarpPerspective's meaning: the reference Remap at its pixel positions.
inline Tensor OracleWarpPerspective(const Tensor& x, const Tensor& h, int64_t ho, int64_t wo,
                                    const GridSampleOptions& o) {
  Tensor y;
  const Status s = ReferenceRemap(x, PerspectivePositions(h, ho, wo), nullptr, o, &y);
  EXPECT_TRUE(s.ok()) << s.message();
  return y;
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_ORACLES_H_
