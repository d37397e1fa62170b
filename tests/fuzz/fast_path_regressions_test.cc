// Fast-path bugs found by the fuzzers, as deterministic tests once per compiled SIMD target.
//
// The fuzz reproducers in tests/fuzz/corpus need AddressSanitizer to fail, these fail in any
// build.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gridsample/gridsample.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace {

using gridsample::DType;
using gridsample::GridSampleOptions;
using gridsample::Mode;
using gridsample::Padding;
using gridsample_test::PerTargetTest;

// WarpAffine, uint8 bilinear, X of one row (H = 1) and a map whose row coordinate changes along
// the output row (theta[1][0] != 0): the fixed-point path (FixedRow in
// src/kernels/drivers/pixels_driver.cc, with AffineRows::InteriorVectors) reads the bytes
// before and after X, as rows -1 and 1. Its "certainly inside" pixels are those whose position lies
// in [1/64, S - 1 - 1/64] on both axes; for S = 1 that interval is empty, but clip() turns its
// bounds into j values in the wrong order and the swap meant for negative slopes makes them a
// non-empty range (the pixels within 1/64 of row 0), which are blended without the inside test.
// Found by fuzz_affine_warp and fuzz_validation (corpus regress-warpaffine-u8-bilinear-h1-*).
//
// X is 8 zero pixels inside a buffer of 255s: every correct result is 0 (any padding), the
// documented fixed-point error is at most 1 level; reading the 255s gives up to 3.
//
// Not through FastPathTester: the bytes around X are the point here.
class FastPathRegressions : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(FastPathRegressions);

TEST_P(FastPathRegressions, WarpAffineUint8BilinearOneRowReadsOnlyX) {
  for (Padding padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
    for (bool align : {false, true}) {
      std::vector<uint8_t> buffer(64, 255);
      uint8_t* x = buffer.data() + 24;
      std::memset(x, 0, 8);
      const float theta[6] = {1.0f, 0.0f, 0.0f, 0.03f, 0.0f, 0.0f};
      std::vector<uint8_t> y(64, 77);
      const int64_t x_shape[4] = {1, 1, 8, 1}, theta_shape[3] = {1, 2, 3},
                    y_shape[4] = {1, 1, 64, 1};
      const GridSampleOptions o{Mode::kLinear, padding, align, {}};
      ASSERT_TRUE(gridsample::WarpAffine({x, DType::kUint8, x_shape, 4},
                                         {theta, DType::kFloat32, theta_shape, 3},
                                         {y.data(), DType::kUint8, y_shape, 4}, o)
                      .ok());
      for (int j = 0; j < 64; ++j) {
        EXPECT_LE(y[j], 1) << target() << " padding " << static_cast<int>(padding)
                           << " align_corners " << align << ": output column " << j
                           << " read outside X (X is all 0)";
      }
    }
  }
}

}  // namespace
