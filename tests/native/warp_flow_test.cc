// WarpFlow (a backward warp by an optical-flow field, NCHW) against GridSample on its grid on every
// target, its coordinate rule against exact arithmetic, hand-worked flows and validation;
// WarpFlowChannelsLast against Remap on the flow's map and against WarpFlow on NCHW.
#include "gridsample/warp_flow.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fast_path_tester.h"
#include "gridsample/warp_affine.h"
#include "gtest/gtest.h"
#include "shape_query.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

using Op = FastPathTester::Op;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// A displacement: small (a flow's usual), whole and half pixels (exact positions, ties), large
// (far outside), huge and non-finite.
float HostileDisplacement(std::mt19937& rng, int64_t size) {
  const int kind = std::uniform_int_distribution<int>(0, 99)(rng);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  if (kind < 60) return u(rng);
  if (kind < 72) return std::round(u(rng));
  if (kind < 80) return std::round(u(rng)) + 0.5f;
  if (kind < 88) return u(rng) * static_cast<float>(size);
  if (kind < 91) return kNaN;
  if (kind < 94) return kind % 2 ? kInf : -kInf;
  if (kind < 97) return kind % 2 ? 1e30f : -3e38f;
  return std::numeric_limits<float>::max();
}

Tensor HostileFlow(std::mt19937& rng, int64_t n, int64_t ho, int64_t wo, int64_t h, int64_t w) {
  Tensor flow(DType::kFloat32, {n, 2, ho, wo});
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t p = 0; p < ho * wo; ++p) {
      flow.Set((b * 2) * ho * wo + p, HostileDisplacement(rng, w));
      flow.Set((b * 2 + 1) * ho * wo + p, HostileDisplacement(rng, h));
    }
  }
  return flow;
}

class WarpFlowFast : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(WarpFlowFast);

// The fast path takes what GridSample's NCHW path takes (rank 2) and equals GridSample on the
// flow's grid: the same values, except where border or reflection padding adds the weights of
// taps on one pixel (the NCHW path's accuracy contract, README "Accuracy"); output rows shorter
// than a vector wrap inside it.
TEST_P(WarpFlowFast, MatchesGridSampleOnItsGrid) {
  std::mt19937 rng(99);
  int64_t runs = 0;
  for (int iter = 0; iter < 30; ++iter) {
    auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    const int64_t n = dim(1, 2), c = dim(1, 5), h = dim(1, 19), w = dim(1, 19);
    const int64_t ho = iter % 3 == 0 ? h : dim(1, 19), wo = iter % 3 == 0 ? w : dim(1, 23);
    const Tensor flow = HostileFlow(rng, n, ho, wo, h, w);
    for (DType dtype : {DType::kFloat32, DType::kUint8, DType::kFloat16}) {
      const Tensor x = RandomTensor(rng, dtype, {n, c, h, w});
      for (Mode m : kModes) {
        for (Padding pad : kPaddings) {
          for (bool align : kAligns) {
            FastPathTester t;
            t.op(Op::kWarpFlow).x(x).flow(flow).mode(m).padding(pad).align(align).fast_path();
            // Equal values (the sign of a zero may differ: the blends add zero-weighted taps
            // the reference skips), and the folded weights' rounding.
            const bool folded = m != Mode::kNearest && pad != Padding::kZeros;
            if (!folded) {
              t.tolerance(0.0).nan_equal(true);
            } else {
              t.tolerance(dtype == DType::kUint8 ? 1.0 : 4e-6 * 4.0, 0.0,
                          dtype == DType::kFloat16 ? 1.0 : 0.0)
                  .nan_equal(true);
            }
            t.Test();
            if (HasFatalFailure()) return;
            ++runs;
          }
        }
      }
    }
  }
  EXPECT_EQ(runs, 30 * 3 * 18);
  std::printf("WarpFlow: %lld runs against GridSample on its grid on %s\n",
              static_cast<long long>(runs), target().c_str());
}

// The public entry point over every dtype (float64, int32 and uint32 on the reference, the rest
// through the fast path's conversions): GridSample's values on the flow's grid.
TEST(WarpFlowPublic, EveryDTypeMatchesGridSampleOnItsGrid) {
  std::mt19937 rng(5);
  for (DType dtype : kAllDTypes) {
    const Tensor x = RandomTensor(rng, dtype, {2, 3, 7, 9});
    const Tensor flow = HostileFlow(rng, 2, 5, 11, 7, 9);
    for (Mode m : kModes) {
      for (Padding pad : kPaddings) {
        FastPathTester t;
        t.op(Op::kWarpFlow).x(x).flow(flow).mode(m).padding(pad).align(pad == Padding::kBorder);
        const bool integer = dtype != DType::kFloat32 && dtype != DType::kFloat64 &&
                             dtype != DType::kFloat16 && dtype != DType::kBFloat16;
        t.tolerance(integer ? 1.0 : 4e-6 * 4.0, 0.0, 1.0).nan_equal(true);
        t.Test();
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Worked by hand, on sides that are not powers of two (positions are sampled as they are): zero
// flow reproduces X (every mode, padding and align); a whole-pixel flow with border padding
// shifts it and repeats the edge (out(p) = in(p + flow)); a huge finite displacement follows the
// padding rule, an infinite one gives 0.
TEST(WarpFlowPublic, HandWorked) {
  constexpr int64_t kH = 7, kW = 13;
  std::mt19937 rng(4);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 3, kH, kW});
  Tensor zero(DType::kFloat32, {1, 2, kH, kW});
  for (Mode m : kModes) {
    for (Padding pad : kPaddings) {
      for (bool align : kAligns) {
        Tensor y(DType::kFloat32, {1, 3, kH, kW});
        const GridSampleOptions o{m, pad, align, {}};
        ASSERT_TRUE(gridsample::WarpFlow(x.View(), zero.View(), y.MutableView(), o).ok());
        for (int64_t k = 0; k < x.size(); ++k) ASSERT_EQ(y.Get(k), x.Get(k)) << Describe(o);
      }
    }
  }
  Tensor shift(DType::kFloat32, {1, 2, kH, kW});
  for (int64_t p = 0; p < kH * kW; ++p) {
    shift.Set(p, 3);             // dx
    shift.Set(kH * kW + p, -2);  // dy
  }
  shift.Set(0, std::numeric_limits<float>::max());  // pixel (0, 0): far right
  shift.Set(1, kInf);                               // pixel (0, 1): infinite
  Tensor y(DType::kFloat32, {1, 3, kH, kW});
  ASSERT_TRUE(gridsample::WarpFlow(x.View(), shift.View(), y.MutableView(),
                                   {Mode::kLinear, Padding::kBorder, false, {}})
                  .ok());
  for (int64_t c = 0; c < 3; ++c) {
    for (int64_t i = 0; i < kH; ++i) {
      for (int64_t j = 0; j < kW; ++j) {
        const int64_t at = (c * kH + i) * kW + j;
        if (i == 0 && j == 0) {
          EXPECT_EQ(y.Get(at), x.Get((c * kH + 0) * kW + kW - 1));  // the edge, clamped
        } else if (i == 0 && j == 1) {
          EXPECT_EQ(y.Get(at), 0.0);
        } else {
          const int64_t si = std::clamp<int64_t>(i - 2, 0, kH - 1);
          const int64_t sj = std::clamp<int64_t>(j + 3, 0, kW - 1);
          ASSERT_EQ(y.Get(at), x.Get((c * kH + si) * kW + sj)) << c << ", " << i << ", " << j;
        }
      }
    }
  }
}

constexpr uint8_t kSentinel = 0xCD;

TEST(WarpFlowValidation, RejectsBadArguments) {
  const Tensor x(DType::kFloat32, {2, 3, 4, 5});
  const Tensor flow(DType::kFloat32, {2, 2, 6, 7});
  Tensor y(DType::kFloat32, {2, 3, 6, 7});
  y.FillBytes(kSentinel);
  const auto expect = [&](const Status& s, const Tensor& out, const std::string& head,
                          const std::vector<std::string>& parts) {
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.message().rfind("WarpFlow: " + head, 0), 0u) << s.message();
    for (const std::string& p : parts) {
      EXPECT_NE(s.message().find(p), std::string::npos) << "'" << p << "' not in: " << s.message();
    }
    EXPECT_TRUE(out.AllBytesAre(kSentinel)) << "output written on error: " << s.message();
  };
  // Each call's inputs are also given to the shape query the JS package sizes Y with.
  const auto call = [&](const Tensor& xv, const Tensor& fv, Tensor& yv, GridSampleOptions o = {}) {
    const Status s = gridsample::WarpFlow(xv.View(), fv.View(), yv.MutableView(), o);
    const std::vector<int64_t>& xs = xv.shape();
    const std::vector<int64_t>& fs = fv.shape();
    ExpectQueryAgrees(gridsample::WarpFlowOutputShape, "WarpFlow", {"X", "flow"}, xv.View(),
                      fv.View(), s, {xs[0], xs[1], fs[2], fs[3]});
    return s;
  };
  const Tensor x5(DType::kFloat32, {2, 3, 1, 4, 5});
  expect(call(x5, flow, y), y, "X", {"expected rank 4 (N, C, H, W)", "got rank 5"});
  const Tensor flow_d(DType::kFloat64, {2, 2, 6, 7});
  expect(call(x, flow_d, y), y, "flow",
         {"expected dtype float32 (displacements in pixels)", "float64"});
  const Tensor flow3(DType::kFloat32, {2, 3, 6, 7});
  expect(call(x, flow3, y), y, "flow",
         {"expected shape [2, 2, Ho, Wo]", "[2, 3, 4, 5]", "got [2, 3, 6, 7]"});
  const Tensor flow_n(DType::kFloat32, {1, 2, 6, 7});
  expect(call(x, flow_n, y), y, "flow", {"got [1, 2, 6, 7]"});
  const Tensor flow_nhwc(DType::kFloat32, {2, 6, 7, 2});
  expect(call(x, flow_nhwc, y), y, "flow", {"got [2, 6, 7, 2]"});
  Tensor y_wrong(DType::kFloat32, {2, 3, 7, 6});
  y_wrong.FillBytes(kSentinel);
  expect(call(x, flow, y_wrong), y_wrong, "Y", {"expected shape [2, 3, 6, 7]", "got [2, 3, 7, 6]"});
  const Tensor x_empty(DType::kFloat32, {2, 3, 0, 5});
  expect(call(x_empty, flow, y), y, "X", {"a dimension is 0", "[2, 3, 6, 7]"});
  expect(call(x, flow, y, {static_cast<Mode>(9), Padding::kZeros, false, {}}), y, "mode",
         {"got value 9"});
  EXPECT_TRUE(call(x, flow, y).ok());
  // Empty outputs succeed and write nothing.
  const Tensor flow0(DType::kFloat32, {2, 2, 0, 7});
  Tensor y0(DType::kFloat32, {2, 3, 0, 7});
  EXPECT_TRUE(call(x, flow0, y0).ok());
}

// --- WarpFlowChannelsLast: interleaved images ------------------------------------------------

class WarpFlowChannelsLastFast : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(WarpFlowChannelsLastFast);

// On every target: the flow (interleaved, and as planes) gives Remap's result on the map
// (j + dx, i + dy) summed in float32, bit for bit; and WarpFlow's on the NCHW image, within the
// channels-last paths' contract (bit for bit but where border or reflection padding folds
// weights, and uint8 bilinear's fixed-point blend: 1 level).
TEST_P(WarpFlowChannelsLastFast, MatchesRemapOnItsMapAndWarpFlowOnNchw) {
  std::mt19937 rng(123);
  int64_t runs = 0;
  for (int iter = 0; iter < 16; ++iter) {
    auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    const int64_t n = iter % 4 == 0 ? 2 : 1, c = dim(1, 4), h = dim(4, 17), w = dim(4, 17);
    const int64_t ho = dim(1, 13), wo = dim(1, 29);
    const Tensor planar = HostileFlow(rng, n, ho, wo, h, w);  // (N, 2, Ho, Wo)
    Tensor flow(DType::kFloat32, {n, ho, wo, 2}), map(DType::kFloat32, {n, ho, wo, 2});
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t p = 0; p < ho * wo; ++p) {
        const float dx = static_cast<float>(planar.Get((b * 2) * ho * wo + p));
        const float dy = static_cast<float>(planar.Get((b * 2 + 1) * ho * wo + p));
        const int64_t at = 2 * (b * ho * wo + p);
        flow.Set(at, dx);
        flow.Set(at + 1, dy);
        map.Set(at, static_cast<float>(p % wo) + dx);
        map.Set(at + 1, static_cast<float>(p / wo) + dy);
      }
    }
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      const Tensor x = RandomTensor(rng, dtype, {n, h, w, c});
      const Tensor x_first = Transposed(x, /*to_channels_first=*/true);
      for (Mode m : kModes) {
        for (Padding pad : kPaddings) {
          for (bool align : kAligns) {
            const GridSampleOptions o{m, pad, align, {}};
            const std::string what =
                Describe(o) + " " + Name(dtype) + " iter " + std::to_string(iter);
            Tensor got(dtype, {n, ho, wo, c}), want(dtype, {n, ho, wo, c});
            ASSERT_TRUE(
                gridsample::WarpFlowChannelsLast(x.View(), flow.View(), got.MutableView(), o).ok());
            ASSERT_TRUE(gridsample::Remap(x.View(), map.View(), want.MutableView(), o).ok());
            for (int64_t k = 0; k < got.size(); ++k) {
              ASSERT_TRUE(got.Get(k) == want.Get(k) ||
                          (std::isnan(got.Get(k)) && std::isnan(want.Get(k))))
                  << what << " at " << k << ": " << got.Get(k) << " vs Remap " << want.Get(k);
            }
            if (n == 1) {  // the planes of the (1, 2, Ho, Wo) flow
              const int64_t plane[3] = {1, ho, wo};
              const float* data = static_cast<const float*>(planar.View().data);
              Tensor planes(dtype, {n, ho, wo, c});
              ASSERT_TRUE(gridsample::WarpFlowChannelsLast(
                              x.View(), {data, DType::kFloat32, plane, 3},
                              {data + ho * wo, DType::kFloat32, plane, 3}, planes.MutableView(), o)
                              .ok());
              for (int64_t k = 0; k < got.size(); ++k) {
                ASSERT_TRUE(planes.Get(k) == got.Get(k) ||
                            (std::isnan(got.Get(k)) && std::isnan(planes.Get(k))))
                    << what << " planes at " << k;
              }
            }
            Tensor nchw(dtype, {n, c, ho, wo});
            ASSERT_TRUE(
                gridsample::WarpFlow(x_first.View(), planar.View(), nchw.MutableView(), o).ok());
            const Tensor back = Transposed(nchw, /*to_channels_first=*/false);
            const bool folded = m != Mode::kNearest && pad != Padding::kZeros;
            const double tolerance = dtype == DType::kUint8 && (m == Mode::kLinear || folded) ? 1.0
                                     : folded ? 4e-6 * 4.0
                                              : 0.0;
            for (int64_t k = 0; k < got.size(); ++k) {
              if (std::isnan(got.Get(k)) && std::isnan(back.Get(k))) continue;
              ASSERT_LE(std::abs(got.Get(k) - back.Get(k)), tolerance)
                  << what << " at " << k << ": " << got.Get(k) << " vs WarpFlow on NCHW "
                  << back.Get(k);
            }
            ++runs;
          }
        }
      }
    }
  }
  EXPECT_EQ(runs, 16 * 2 * 18);
}

TEST(WarpFlowChannelsLastPublic, FillAndValidation) {
  const Tensor x = MakeTensor(DType::kFloat32, {1, 2, 2, 1}, {1, 2, 3, 4});
  // Every pixel moved 10 pixels right: all outside, the fill; a zero flow: X itself.
  Tensor flow = MakeTensor(DType::kFloat32, {1, 2, 2, 2}, {10, 0, 10, 0, 10, 0, 10, 0});
  Tensor y(DType::kFloat32, {1, 2, 2, 1});
  const double fill[1] = {7};
  ASSERT_TRUE(
      gridsample::WarpFlowChannelsLast(x.View(), flow.View(), y.MutableView(), {}, fill).ok());
  for (int64_t k = 0; k < 4; ++k) EXPECT_EQ(y.Get(k), 7.0);
  for (int64_t k = 0; k < 8; ++k) flow.Set(k, 0.0);
  ASSERT_TRUE(
      gridsample::WarpFlowChannelsLast(x.View(), flow.View(), y.MutableView(), {}, fill).ok());
  for (int64_t k = 0; k < 4; ++k) EXPECT_EQ(y.Get(k), x.Get(k));
  // Messages name the flow, not a map.
  const Tensor bytes(DType::kUint8, {1, 2, 2, 2});
  Status s = gridsample::WarpFlowChannelsLast(x.View(), bytes.View(), y.MutableView());
  EXPECT_EQ(s.message(),
            "WarpFlowChannelsLast: flow: expected dtype float32 (pixel offsets), got uint8");
  const Tensor fx(DType::kFloat32, {1, 2, 2}), fy(DType::kFloat32, {1, 2, 3});
  s = gridsample::WarpFlowChannelsLast(x.View(), fx.View(), fy.View(), y.MutableView());
  EXPECT_EQ(s.message(),
            "WarpFlowChannelsLast: flow_y: expected flow_x's shape [1, 2, 2], got [1, 2, 3]");
}

}  // namespace
}  // namespace gridsample_test
