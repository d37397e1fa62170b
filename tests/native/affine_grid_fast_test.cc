// The fast AffineGrid against the reference AffineGrid, bit for bit, once per compiled SIMD target.
//
// The fast path computes AffineGrid's values in double exactly as the reference does (see
// src/kernels/sources/affine_sums-inl.h).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fast_path_tester.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

class AffineGridFast : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(AffineGridFast);

// The fast AffineGrid (float32, float64 theta; 2-D and 3-D) equals the reference bit for bit,
// also for sizes crossing its 512-column tiles, huge values overflowing float32 and
// non-finite entries.
TEST_P(AffineGridFast, EqualsReferenceBitForBit) {
  int64_t compared = 0;
  std::mt19937 rng(11);
  for (int iter = 0; iter < 60; ++iter) {
    const int rank = iter % 3 == 2 ? 3 : 2;
    auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    std::vector<int64_t> size = {dim(1, 2), dim(1, 3)};
    for (int a = 0; a < rank; ++a) size.push_back(dim(1, 19));
    if (iter % 10 == 0) size.back() = dim(513, 1100);
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      Tensor theta(dtype, {size[0], rank, rank + 1});
      std::uniform_real_distribution<double> u(-2.0, 2.0);
      for (int64_t i = 0; i < theta.size(); ++i) theta.Set(i, u(rng));
      if (iter % 4 == 1) theta.Set(dim(0, theta.size() - 1), iter % 8 == 1 ? 3.3e38 : 1e300);
      if (iter % 6 == 3) theta.Set(dim(0, theta.size() - 1), std::nan(""));
      if (iter % 5 == 4) {
        for (int64_t i = 0; i < theta.size(); ++i) theta.Set(i, RandomDyadic(rng, -2, 2, 2));
      }
      for (bool align : kAligns) {
        FastPathTester()
            .op(FastPathTester::Op::kAffineGrid)
            .theta(theta)
            .channels(size[1])
            .out(std::vector<int64_t>(size.begin() + 2, size.end()))
            .align(align)
            .fast_path(true)
            .Test();
        if (HasFatalFailure()) return;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 60 * 2 * 2);
}

// 16-bit theta stays on the reference (its grid is rounded once from double to half).
TEST_P(AffineGridFast, HalfThetaIsLeftToTheReference) {
  FastPathTester()
      .op(FastPathTester::Op::kAffineGrid)
      .theta(Tensor(DType::kFloat16, {1, 2, 3}))
      .channels(1)
      .out({2, 2})
      .fast_path(false)
      .Test();
}

}  // namespace
}  // namespace gridsample_test
