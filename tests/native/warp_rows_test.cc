// WarpAffineRows and WarpPerspectiveRows (warp_affine.h): every band of an output holds the
// same bytes as those rows of the whole output, on every SIMD target, fast path and reference
// (float64, C = 5), on one thread and two; bands that do not fit are errors that write nothing.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gridsample/gridsample.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

using gridsample::OutputRows;

// A warp of the whole output (rows null) or of a band, with its options.
using Warp = std::function<Status(const MutableTensorView& y, const OutputRows* rows,
                                  const GridSampleOptions& options)>;

// The bands a test cuts an output of `height` rows into: uneven, one row, empty, all.
std::vector<std::pair<int64_t, int64_t>> Bands(int64_t height) {
  return {{0, 17}, {17, 18}, {18, height - 5}, {height - 5, height}, {30, 30}, {0, height}};
}

// Every band of `warp`'s output (N, height, wo, C) equals those rows of the whole output.
void ExpectBandsEqualTheWhole(const Warp& warp, DType dt, int64_t n, int64_t height, int64_t wo,
                              int64_t c, const GridSampleOptions& options,
                              const std::string& what) {
  Tensor whole(dt, {n, height, wo, c});
  whole.FillBytes(0xA5);
  Status s = warp(whole.MutableView(), nullptr, options);
  ASSERT_TRUE(s.ok()) << what << ": " << s.message();
  const size_t row_bytes = static_cast<size_t>(wo * c) * ElementSize(dt);
  for (const auto& [begin, end] : Bands(height)) {
    Tensor band(dt, {n, end - begin, wo, c});
    band.FillBytes(0x5A);
    const OutputRows rows{height, begin};
    s = warp(band.MutableView(), &rows, options);
    ASSERT_TRUE(s.ok()) << what << " rows " << begin << ".." << end << ": " << s.message();
    // (An empty band has nothing to compare, and its null data may not go to memcmp.)
    for (int64_t item = 0; item < n && end > begin; ++item) {
      const auto* expected = static_cast<const uint8_t*>(whole.data()) +
                             static_cast<size_t>(item * height + begin) * row_bytes;
      const auto* got = static_cast<const uint8_t*>(band.data()) +
                        static_cast<size_t>(item * (end - begin)) * row_bytes;
      EXPECT_EQ(0, std::memcmp(expected, got, static_cast<size_t>(end - begin) * row_bytes))
          << what << ": rows " << begin << ".." << end << " of item " << item
          << " differ from the whole output's";
    }
  }
}

class WarpRows : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(WarpRows);

TEST_P(WarpRows, EveryBandEqualsThoseRowsOfTheWholeOutput) {
  std::mt19937 rng(11);
  const int64_t n = 2, h = 40, w = 52, height = 61, wo = 70;
  const double a = 0.4, s = 1.2;
  const double t[] = {s * std::cos(a), -s * std::sin(a), 0.1,
                      s * std::sin(a), s * std::cos(a),  -0.2};
  const Tensor theta =
      MakeTensor(DType::kFloat32, {n, 2, 3},
                 {t[0], t[1], t[2], t[3], t[4], t[5], 0.9, 0.1, 0, -0.1, 0.8, 0.3});
  const Tensor homography =
      MakeTensor(DType::kFloat64, {n, 3, 3},
                 {0.8, 0.1, 3, -0.05, 0.9, 2, 0.0004, 0.0002, 1, 1, 0, -4, 0, 1, 5, 0, 0.001, 1});
  const double fill_values[] = {7, 20, 40, 90, 3};
  // The fast path's dtypes and channel counts (uint8 C = 3 takes its tail pixel), the
  // reference's (float64, C = 5); one thread with align false, two with align true (the whole
  // set under ASan took 10 minutes).
  const std::pair<DType, int64_t> images[] = {{DType::kUint8, 3},
                                              {DType::kUint8, 4},
                                              {DType::kFloat32, 1},
                                              {DType::kFloat32, 4},
                                              {DType::kFloat64, 5}};
  for (const auto& [dt, c] : images) {
    const Tensor x = RandomTensor(rng, dt, {n, h, w, c});
    for (Mode m : kModes) {
      for (Padding pad : kPaddings) {
        for (bool align : kAligns) {
          const int threads = align ? 2 : 1;
          const double* fill = pad == Padding::kZeros ? fill_values : nullptr;
          const GridSampleOptions options{m, pad, align, {threads, nullptr, nullptr}};
          const std::string what = std::string(Name(dt)) + " C=" + std::to_string(c) + " " +
                                   Describe({m, pad, align, {}}) + " " + std::to_string(threads) +
                                   " thread(s)";
          const Warp affine = [&](const MutableTensorView& y, const OutputRows* rows,
                                  const GridSampleOptions& o) {
            return rows ? gridsample::WarpAffineRows(x.View(), theta.View(), y, *rows, o, fill)
                        : gridsample::WarpAffine(x.View(), theta.View(), y, o, fill);
          };
          const Warp perspective = [&](const MutableTensorView& y, const OutputRows* rows,
                                       const GridSampleOptions& o) {
            return rows ? gridsample::WarpPerspectiveRows(x.View(), homography.View(), y, *rows, o,
                                                          fill)
                        : gridsample::WarpPerspective(x.View(), homography.View(), y, o, fill);
          };
          ExpectBandsEqualTheWhole(affine, dt, n, height, wo, c, options, "WarpAffine " + what);
          ExpectBandsEqualTheWhole(perspective, dt, n, height, wo, c, options,
                                   "WarpPerspective " + what);
        }
      }
    }
  }
}

TEST(WarpRowsValidation, BandsOutsideTheOutputAreErrors) {
  std::mt19937 rng(12);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 8, 8, 3});
  const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const Tensor h = MakeTensor(DType::kFloat32, {1, 3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  const struct {
    OutputRows rows;
    int64_t band;
  } bad[] = {{{10, -1}, 4}, {{10, 7}, 4}, {{3, 0}, 4}, {{-1, 0}, 0}, {{10, 11}, 0}};
  for (const auto& b : bad) {
    for (bool affine : {true, false}) {
      Tensor y(DType::kFloat32, {1, b.band, 8, 3});
      y.FillBytes(0x5A);
      const Status s =
          affine ? gridsample::WarpAffineRows(x.View(), theta.View(), y.MutableView(), b.rows)
                 : gridsample::WarpPerspectiveRows(x.View(), h.View(), y.MutableView(), b.rows);
      const std::string op = affine ? "WarpAffineRows" : "WarpPerspectiveRows";
      ASSERT_FALSE(s.ok()) << op << " rows from " << b.rows.begin << " of " << b.rows.height;
      EXPECT_EQ(s.code(), gridsample::StatusCode::kInvalidArgument);
      EXPECT_EQ(std::string(s.message()),
                op + ": rows: expected Y's " + std::to_string(b.band) +
                    " rows to lie within the output, got rows " + std::to_string(b.rows.begin) +
                    " onwards of an output " + std::to_string(b.rows.height) + " rows high");
      for (size_t i = 0; i < y.bytes(); ++i) {
        ASSERT_EQ(static_cast<const uint8_t*>(y.data())[i], 0x5A) << op << ": Y was written";
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
