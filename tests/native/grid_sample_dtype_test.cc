// GridSample over every X and grid dtype, against its float64 path; integer rounding.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sampling_rules.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

// ---------------------------------------------------------------------------
// Every dtype against the float64 path on the same data.

class GridSampleDTypeTest : public ::testing::TestWithParam<DType> {};

TEST_P(GridSampleDTypeTest, MatchesFloat64Path) {
  const DType xt = GetParam();
  const std::vector<int64_t> kIn[] = {{9}, {4, 5}, {3, 4, 3}};
  const std::vector<int64_t> kOut[] = {{10}, {3, 4}, {2, 3, 2}};
  for (const Kernel& kernel : kKernels) {
    for (size_t r = 1; r <= 3; ++r) {
      std::mt19937 rng(static_cast<uint32_t>(300 + r + 17 * static_cast<int>(xt)));
      const Tensor x = RandomTensor(rng, xt, TensorShape(2, 2, kIn[r - 1]));
      const Tensor x64 = x.Converted(DType::kFloat64);  // exact
      double max_abs_x = 0.0;
      for (int64_t i = 0; i < x.size(); ++i) max_abs_x = std::max(max_abs_x, std::fabs(x.Get(i)));
      const Tensor grid64 = RandomGrid(rng, DType::kFloat64, GridShape(2, kOut[r - 1]), 1.4);
      for (DType gt : kGridDTypes) {
        const Tensor grid = grid64.Converted(gt);  // dyadic values: exact in every grid type
        for (Mode m : kModes) {
          for (Padding p : kPaddings) {
            for (bool align : kAligns) {
              const GridSampleOptions o = Options(m, p, align);
              const std::string what = std::string(kernel.name) + " x=" + Name(xt) +
                                       " grid=" + Name(gt) + " rank " + std::to_string(r) + ' ' +
                                       Describe(o);
              Tensor y, y64;
              Status s = RunGridSample(kernel.grid_sample, x, grid, o, &y);
              ASSERT_TRUE(s.ok()) << what << ": " << s.message();
              s = RunGridSample(kernel.grid_sample, x64, grid64, o, &y64);
              ASSERT_TRUE(s.ok()) << what << ": " << s.message();
              // float32 compute error of a blend of up to 4^r taps (sum |w| <= 1.5^r).
              const double compute = (m == Mode::kCubic ? 2e-6 : 5e-7) * max_abs_x;
              int failures = 0;
              for (int64_t i = 0; i < y.size(); ++i) {
                const double exact = y64.Get(i);
                const double want = RoundToDType(exact, xt);
                const double got = y.Get(i);
                double allowed;
                if (m == Mode::kNearest) {
                  allowed = 0.0;  // one tap, same tap in both paths: the value itself
                } else if (IsInteger(xt)) {
                  allowed = 1.0;  // a float32 blend may fall on the other side of a .5
                } else {
                  allowed = (xt == DType::kFloat64 ? 0.0 : Ulp(want, xt)) + compute;
                }
                const double diff = IsInteger(xt) || m == Mode::kNearest ? std::fabs(got - want)
                                                                         : std::fabs(got - exact);
                if (!(diff <= allowed) && failures++ < 5) {
                  ADD_FAILURE() << what << ": " << WhereInY(y, i) << " got " << got
                                << " float64 path " << exact << " rounded " << want << " (allowed "
                                << allowed << ")";
                }
              }
            }
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllXTypes, GridSampleDTypeTest, ::testing::ValuesIn(kAllDTypes),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(Name(info.param));
                         });

// grid_sample.h: "Computation happens in double when x is float64, int32 or uint32 or grid is
// float64". Then the result is the float64 path's value correctly rounded to x's dtype (half
// an ulp / half a level, plus a hair for a different operation order). Grid values here are
// not dyadic, so a float32 computation would be visibly further off.
TEST(GridSampleDType, ComputesInDoubleWhereTheContractSaysSo) {
  const std::vector<int64_t> kIn[] = {{9}, {4, 5}, {3, 4, 3}};
  const std::vector<int64_t> kOut[] = {{10}, {3, 4}, {2, 3, 2}};
  for (const Kernel& kernel : kKernels) {
    for (DType xt : kAllDTypes) {
      for (DType gt : {DType::kFloat32, DType::kFloat64}) {
        const bool in_double = xt == DType::kFloat64 || xt == DType::kInt32 || xt == DType::kUint32;
        if (!in_double) continue;
        for (size_t r = 1; r <= 3; ++r) {
          std::mt19937 rng(static_cast<uint32_t>(700 + r + 13 * static_cast<int>(xt)));
          const Tensor x = RandomTensor(rng, xt, TensorShape(1, 2, kIn[r - 1]));
          double max_abs_x = 0.0;
          for (int64_t i = 0; i < x.size(); ++i)
            max_abs_x = std::max(max_abs_x, std::fabs(x.Get(i)));
          Tensor grid(gt, GridShape(1, kOut[r - 1]));
          for (int64_t i = 0; i < grid.size(); ++i) {
            grid.Set(i, std::uniform_real_distribution<double>(-1.2, 1.2)(rng));
          }
          const Tensor x64 = x.Converted(DType::kFloat64), grid64 = grid.Converted(DType::kFloat64);
          for (Mode m : {Mode::kLinear, Mode::kCubic}) {
            for (Padding p : kPaddings) {
              for (bool align : kAligns) {
                const GridSampleOptions o = Options(m, p, align);
                Tensor y, y64;
                ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
                ASSERT_TRUE(RunGridSample(kernel.grid_sample, x64, grid64, o, &y64).ok());
                int failures = 0;
                for (int64_t i = 0; i < y.size(); ++i) {
                  double exact = y64.Get(i);
                  if (IsInteger(xt)) exact = std::min(std::max(exact, IntMin(xt)), IntMax(xt));
                  const double allowed = 0.5 * Ulp(exact, xt) + 1e-12 * max_abs_x;
                  if (!(std::fabs(y.Get(i) - exact) <= allowed) && failures++ < 3) {
                    ADD_FAILURE() << kernel.name << " x=" << Name(xt) << " grid=" << Name(gt)
                                  << " rank " << r << ' ' << Describe(o) << ": " << WhereInY(y, i)
                                  << " got " << y.Get(i) << ", float64 path " << exact
                                  << ": not the double result rounded once (allowed " << allowed
                                  << ")";
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// Linear halfway between two integers is an exact .5 in any precision: the result must be
// rounded half to even, computed here with nearbyint on the exact midpoint. Sizes keep the
// grid values dyadic: S = 8 (align 0, g = (2i+2)/8 - 1) and S = 9 (align 1, g = (2i+1)/8 - 1).
TEST(GridSampleDType, IntegerTiesRoundHalfToEven) {
  for (const Kernel& kernel : kKernels) {
    for (DType xt : kAllDTypes) {
      if (!IsInteger(xt)) continue;
      for (bool align : kAligns) {
        const int64_t s = align ? 9 : 8;
        // Consecutive values around zero (signed) or from 0, at the top and at the bottom.
        for (double base : {IntMin(xt) == 0.0 ? 0.0 : -4.0, IntMax(xt) - static_cast<double>(s - 1),
                            IntMin(xt)}) {
          std::vector<double> xv;
          for (int64_t i = 0; i < s; ++i) xv.push_back(base + static_cast<double>(i));
          const Tensor x = MakeTensor(xt, {1, 1, s}, xv);
          std::vector<double> gv;  // output i samples x = i + 0.5
          for (int64_t i = 0; i + 1 < s; ++i) {
            gv.push_back(align ? -1.0 + (2.0 * i + 1.0) / (s - 1.0) : (2.0 * i + 2.0) / s - 1.0);
          }
          for (DType gt : kGridDTypes) {
            const Tensor grid = MakeTensor(gt, {1, s - 1, 1}, gv);
            for (Padding p : kPaddings) {
              const GridSampleOptions o = Options(Mode::kLinear, p, align);
              Tensor y;
              ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
              for (int64_t i = 0; i + 1 < s; ++i) {
                const double want = std::nearbyint(xv[static_cast<size_t>(i)] + 0.5);
                EXPECT_EQ(y.Get(i), want)
                    << kernel.name << " x=" << Name(xt) << " grid=" << Name(gt) << " pixel " << i
                    << " midpoint of " << xv[static_cast<size_t>(i)] << " and "
                    << xv[static_cast<size_t>(i) + 1] << ' ' << Describe(o);
              }
            }
          }
        }
      }
    }
  }
}

// Cubic overshoot beyond the integer range saturates. At x = k + 0.5 the Keys weights are
// (-3/32, 19/32, 19/32, -3/32), exact in binary. S = 16 (align 0) keeps g dyadic.
TEST(GridSampleDType, IntegerCubicOvershootSaturates) {
  const double w0 = -3.0 / 32.0, w1 = 19.0 / 32.0;
  ASSERT_EQ(Keys(1.5), w0);
  ASSERT_EQ(Keys(0.5), w1);
  for (const Kernel& kernel : kKernels) {
    for (DType xt : kAllDTypes) {
      if (!IsInteger(xt)) continue;
      const double lo = IntMin(xt), hi = IntMax(xt);
      const double mid_lo = std::floor(lo + (hi - lo) * 0.25);
      const double mid_hi = std::floor(lo + (hi - lo) * 0.75);
      // Taps 0..3 = lo hi hi lo overshoot above hi at x = 1.5; taps 4..7 = hi lo lo hi
      // undershoot below lo at x = 5.5; taps 8..11 stay inside the range at x = 9.5.
      std::vector<double> xv = {lo, hi, hi, lo, hi, lo, lo, hi, mid_lo, mid_hi, mid_hi, mid_lo};
      xv.resize(16, lo);
      const Tensor x = MakeTensor(xt, {1, 1, 16}, xv);
      auto g = [](double px) { return (2.0 * px + 1.0) / 16.0 - 1.0; };
      for (DType gt : kGridDTypes) {
        const Tensor grid = MakeTensor(gt, {1, 3, 1}, {g(1.5), g(5.5), g(9.5)});
        const GridSampleOptions o = Options(Mode::kCubic, Padding::kZeros, false);
        Tensor y;
        ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
        const double inside = 2.0 * w0 * mid_lo + 2.0 * w1 * mid_hi;
        const std::string what = std::string(kernel.name) + " x=" + Name(xt) + " grid=" + Name(gt);
        EXPECT_EQ(y.Get(0), hi) << what << ": overshoot " << 2 * w0 * lo + 2 * w1 * hi
                                << " must saturate";
        EXPECT_EQ(y.Get(1), lo) << what << ": undershoot " << 2 * w0 * hi + 2 * w1 * lo
                                << " must saturate";
        EXPECT_NEAR(y.Get(2), std::nearbyint(inside), 1.0) << what << ": in-range value";
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
