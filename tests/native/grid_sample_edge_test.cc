// GridSample's edge cases: non-finite and huge grid coordinates, size-1 axes, empty tensors.

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sampling_rules.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------
// Non-finite and huge grid coordinates.

const std::vector<int64_t> kEdgeIn[] = {{6}, {4, 5}, {3, 4, 3}};
const std::vector<int64_t> kEdgeOut[] = {{5}, {3, 4}, {2, 3, 2}};

TEST(GridSampleEdge, NonFiniteCoordinateGivesZeroAndLeavesNeighboursAlone) {
  for (const Kernel& kernel : kKernels) {
    for (size_t r = 1; r <= 3; ++r) {
      const std::vector<int64_t>& in = kEdgeIn[r - 1];
      const std::vector<int64_t>& out = kEdgeOut[r - 1];
      std::mt19937 rng(static_cast<uint32_t>(400 + r));
      // X in [1, 2]: no output is 0 unless the rule says so.
      Tensor x(DType::kFloat32, TensorShape(1, 3, in));
      for (int64_t i = 0; i < x.size(); ++i) x.Set(i, 1.0 + RandomDyadic(rng, 0.0, 1.0));
      const int64_t points = NumElements(out);
      for (DType gt : kGridDTypes) {
        const Tensor base_grid = RandomGrid(rng, gt, GridShape(1, out), 0.9);
        for (Mode m : kModes) {
          for (Padding p : kPaddings) {
            for (bool align : kAligns) {
              const GridSampleOptions o = Options(m, p, align);
              Tensor y_base;
              ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, base_grid, o, &y_base).ok());
              for (int64_t point : {int64_t{0}, points / 2, points - 1}) {
                for (size_t axis = 0; axis < r; ++axis) {
                  for (double bad : {kNaN, kInf, -kInf}) {
                    Tensor grid = base_grid;
                    grid.Set(point * static_cast<int64_t>(r) + static_cast<int64_t>(axis), bad);
                    Tensor y;
                    ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
                    int failures = 0;
                    for (int64_t i = 0; i < y.size(); ++i) {
                      const bool hit = i % points == point;
                      const double want = hit ? 0.0 : y_base.Get(i);
                      const double got = y.Get(i);
                      if (!(got == want) && failures++ < 3) {
                        ADD_FAILURE() << kernel.name << " rank " << r << " grid=" << Name(gt) << ' '
                                      << Describe(o) << ": coordinate " << axis << " of point "
                                      << point << " = " << bad << "; " << WhereInY(y, i) << " got "
                                      << got << " expected " << want
                                      << (hit ? " (the non-finite point)" : " (a neighbour)");
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
  }
}

// A pixel of an axis of size s whose centre has a grid coordinate exact even in bfloat16
// (an interior one when there is), so the other axes of a huge point contribute one pixel.
int64_t ExactCentre(int64_t s, bool align) {
  int64_t best = 0;
  for (int64_t j = 0; j < s; ++j) {
    const double g = CentreToGrid(j, s, align);
    if (RoundToBFloat16(g) == g) {
      best = j;
      if (j > 0 && j < s - 1) return j;
    }
  }
  return best;
}

// Huge finite coordinates: zeros -> 0, border -> the edge pixel, reflection -> a finite value
// inside X's range (plus the cubic kernel's overshoot). Points either have every coordinate
// huge (-> a corner) or one coordinate huge and the others on pixel centres (-> an edge).
void CheckHugeCoordinates(const Kernel& kernel, DType gt, const std::vector<double>& huge) {
  for (size_t r = 1; r <= 3; ++r) {
    const std::vector<int64_t>& in = kEdgeIn[r - 1];
    std::mt19937 rng(static_cast<uint32_t>(500 + r));
    Tensor x(DType::kFloat32, TensorShape(1, 2, in));
    for (int64_t i = 0; i < x.size(); ++i) x.Set(i, 1.0 + RandomDyadic(rng, 0.0, 1.0));
    double lo = kInf, hi = -kInf;
    for (int64_t i = 0; i < x.size(); ++i) {
      lo = std::min(lo, x.Get(i));
      hi = std::max(hi, x.Get(i));
    }
    // Points: for each huge value v and sign pattern, all axes huge; then for each axis and
    // sign, that axis huge and the others on a pixel centre.
    std::vector<std::vector<double>> coords;     // per point, per spatial axis (outermost first)
    std::vector<std::vector<int64_t>> edge_src;  // border answer per point
    for (double v : huge) {
      for (int signs = 0; signs < (1 << r); ++signs) {
        std::vector<double> c;
        std::vector<int64_t> src;
        for (size_t a = 0; a < r; ++a) {
          const bool neg = (signs >> a) & 1;
          c.push_back(neg ? -v : v);
          src.push_back(neg ? 0 : in[a] - 1);
        }
        coords.push_back(c);
        edge_src.push_back(src);
      }
      for (size_t a = 0; a < r; ++a) {
        for (bool neg : {false, true}) {
          std::vector<double> c;
          std::vector<int64_t> src;
          for (size_t b = 0; b < r; ++b) {
            if (b == a) {
              c.push_back(neg ? -v : v);
              src.push_back(neg ? 0 : in[b] - 1);
            } else {
              c.push_back(0.0);  // a pixel centre, chosen per align below
              src.push_back(-1);
            }
          }
          coords.push_back(c);
          edge_src.push_back(src);
        }
      }
    }
    const std::vector<int64_t> out{static_cast<int64_t>(coords.size())};
    for (bool align : kAligns) {
      // One output axis holding all points: the grid is (1, P, r) even for r > 1, so use an
      // r-D output of shape (P, 1, ..., 1).
      std::vector<int64_t> out_r(r, 1);
      out_r[0] = out[0];
      Tensor grid(gt, GridShape(1, out_r));
      for (size_t pt = 0; pt < coords.size(); ++pt) {
        for (size_t a = 0; a < r; ++a) {
          double g = coords[pt][a];
          if (std::fabs(g) < 1.0) g = CentreToGrid(ExactCentre(in[a], align), in[a], align);
          grid.Set(static_cast<int64_t>(pt * r + (r - 1 - a)), g);
        }
      }
      for (Mode m : kModes) {
        for (Padding p : kPaddings) {
          const GridSampleOptions o = Options(m, p, align);
          Tensor y;
          const Status s = RunGridSample(kernel.grid_sample, x, grid, o, &y);
          ASSERT_TRUE(s.ok()) << s.message();
          const double slack = m == Mode::kCubic ? (std::pow(1.5, r) - 1.0) / 2.0 * (hi - lo) : 0.0;
          for (int64_t c = 0; c < 2; ++c) {
            for (size_t pt = 0; pt < coords.size(); ++pt) {
              const double got =
                  y.Get(c * static_cast<int64_t>(coords.size()) + static_cast<int64_t>(pt));
              std::ostringstream where;
              where << kernel.name << " rank " << r << " grid=" << Name(gt) << ' ' << Describe(o)
                    << " c=" << c << " point " << pt
                    << " coords(outermost first)=" << ToString(coords[pt]);
              if (p == Padding::kZeros) {
                EXPECT_EQ(got, 0.0) << where.str();
              } else if (p == Padding::kBorder) {
                std::vector<int64_t> xi{0, c};
                for (size_t a = 0; a < r; ++a) {
                  const int64_t j = edge_src[pt][a];
                  xi.push_back(j >= 0 ? j : ExactCentre(in[a], align));
                }
                const double want = x.Get(xi);
                EXPECT_NEAR(got, want, 2e-6 * std::fabs(want)) << where.str();
              } else {
                EXPECT_TRUE(std::isfinite(got) && got >= lo - slack - 1e-6 &&
                            got <= hi + slack + 1e-6)
                    << where.str() << " got " << got << " outside [" << lo << ", " << hi << "] +- "
                    << slack;
              }
            }
          }
        }
      }
    }
  }
}

TEST(GridSampleEdge, HugeFiniteCoordinatesFollowPadding) {
  for (const Kernel& kernel : kKernels) {
    SCOPED_TRACE(kernel.name);
    CheckHugeCoordinates(kernel, DType::kFloat32, {1e10, 1e30, FLT_MAX});
    CheckHugeCoordinates(kernel, DType::kFloat64, {1e10, 1e30, FLT_MAX, 1e300, DBL_MAX});
    CheckHugeCoordinates(kernel, DType::kBFloat16, {1e10, 1e30, kBFloat16Max});
    CheckHugeCoordinates(kernel, DType::kFloat16, {6e4, kHalfMax});
  }
}

// ---------------------------------------------------------------------------
// Size-1 axes. With align 1 every finite g maps to x = 0 (even huge ones); with align 0
// x = g / 2, and only tap 0 exists: zeros -> weight(tap 0) * X0, border/reflection -> X0.

double SizeOneWeight(Mode m, double x) {
  switch (m) {
    case Mode::kNearest: return std::nearbyint(x) == 0.0 ? 1.0 : 0.0;
    case Mode::kLinear: return std::fabs(x) < 1.0 ? 1.0 - std::fabs(x) : 0.0;
    case Mode::kCubic: return Keys(x);
  }
  return 0.0;
}

TEST(GridSampleEdge, SizeOneAxes) {
  const std::vector<double> kG = {-3.0, -1.5, -1.0, -0.75, -0.5, 0.0,
                                  0.25, 0.5,  1.0,  1.5,   2.0,  3.0};
  const std::vector<double> kHugeG = {1e30, -1e30, FLT_MAX, -FLT_MAX};
  for (const Kernel& kernel : kKernels) {
    for (Mode m : kModes) {
      for (Padding p : kPaddings) {
        for (bool align : kAligns) {
          const GridSampleOptions o = Options(m, p, align);
          // 1-D, S = 1, two channels.
          std::vector<double> gv = kG;
          if (align) gv.insert(gv.end(), kHugeG.begin(), kHugeG.end());
          const Tensor x = MakeTensor(DType::kFloat32, {1, 2, 1}, {3.0, -5.0});
          const Tensor grid =
              MakeTensor(DType::kFloat32, {1, static_cast<int64_t>(gv.size()), 1}, gv);
          Tensor y;
          ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
          for (size_t i = 0; i < gv.size(); ++i) {
            const double px = align ? 0.0 : gv[i] / 2.0;
            const double w = p == Padding::kZeros ? SizeOneWeight(m, px) : 1.0;
            for (int64_t c = 0; c < 2; ++c) {
              const double want = w * x.Get(c);
              EXPECT_NEAR(y.Get(c * static_cast<int64_t>(gv.size()) + static_cast<int64_t>(i)),
                          want, 1e-6)
                  << kernel.name << " 1-D S=1 g=" << gv[i] << " c=" << c << ' ' << Describe(o);
            }
          }
          // 2-D, 1 x 1: the weights multiply.
          std::vector<double> g2;
          std::vector<double> want2;
          for (double gx : kG) {
            for (double gy : {-1.0, 0.0, 0.5, 1.5}) {
              g2.push_back(gx);
              g2.push_back(gy);
              const double wx = p == Padding::kZeros ? SizeOneWeight(m, align ? 0.0 : gx / 2) : 1.0;
              const double wy = p == Padding::kZeros ? SizeOneWeight(m, align ? 0.0 : gy / 2) : 1.0;
              want2.push_back(wx * wy * 7.0);
            }
          }
          const Tensor x2 = MakeTensor(DType::kFloat32, {1, 1, 1, 1}, {7.0});
          const Tensor grid2 =
              MakeTensor(DType::kFloat32, {1, 1, static_cast<int64_t>(want2.size()), 2}, g2);
          ASSERT_TRUE(RunGridSample(kernel.grid_sample, x2, grid2, o, &y).ok());
          for (size_t i = 0; i < want2.size(); ++i) {
            EXPECT_NEAR(y.Get(static_cast<int64_t>(i)), want2[i], 1e-5)
                << kernel.name << " 2-D 1x1 g=(" << g2[2 * i] << ',' << g2[2 * i + 1] << ") "
                << Describe(o);
          }
          // NaN still gives 0 on a size-1 axis.
          const Tensor nan_grid = MakeTensor(DType::kFloat32, {1, 1, 1}, {kNaN});
          ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, nan_grid, o, &y).ok());
          EXPECT_EQ(y.Get(0), 0.0) << kernel.name << " S=1 g=NaN " << Describe(o);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Empty tensors.

TEST(GridSampleEdge, EmptyOutputsSucceedAndWriteNothing) {
  struct Case {
    const char* what;
    std::vector<int64_t> x, grid, y;
  };
  const Case kCases[] = {
      {"N=0", {0, 2, 3, 4}, {0, 5, 6, 2}, {0, 2, 5, 6}},
      {"C=0", {1, 0, 3, 4}, {1, 5, 6, 2}, {1, 0, 5, 6}},
      {"H_out=0", {1, 2, 3, 4}, {1, 0, 6, 2}, {1, 2, 0, 6}},
      {"W_out=0 1-D", {2, 2, 3}, {2, 0, 1}, {2, 2, 0}},
      {"D_out=0 3-D", {1, 1, 2, 3, 4}, {1, 0, 2, 2, 3}, {1, 1, 0, 2, 2}},
      {"empty X and empty output", {1, 2, 0, 4}, {1, 0, 3, 2}, {1, 2, 0, 3}},
      {"empty X, C=0", {1, 0, 0, 4}, {1, 2, 3, 2}, {1, 0, 2, 3}},
  };
  for (const Kernel& kernel : kKernels) {
    for (const Case& c : kCases) {
      for (bool null_data : {false, true}) {
        Tensor x(DType::kFloat32, c.x), grid(DType::kFloat32, c.grid);
        for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, 0.25);
        // A sentinel buffer behind y: it has no elements, so nothing may change.
        std::vector<uint8_t> sentinel(64, 0xAB);
        MutableTensorView yv;
        yv.data = null_data ? nullptr : sentinel.data();
        yv.dtype = DType::kFloat32;
        yv.shape = c.y.data();
        yv.rank = c.y.size();
        // Empty tensors get null data (allowed) or a dummy pointer that must not be read.
        static const float kDummy[4] = {};
        TensorView xv = x.View(), gv = grid.View();
        if (!null_data && !xv.data) xv.data = kDummy;
        if (!null_data && !gv.data) gv.data = kDummy;
        for (Mode m : kModes) {
          const GridSampleOptions o = Options(m, Padding::kReflection, true);
          const Status s = kernel.grid_sample(xv, gv, yv, o);
          EXPECT_TRUE(s.ok()) << kernel.name << ' ' << c.what << " null_data=" << null_data << ' '
                              << Describe(o) << ": " << s.message();
          for (uint8_t b : sentinel) ASSERT_EQ(b, 0xAB) << kernel.name << ' ' << c.what;
        }
        int64_t y_shape[5] = {-1, -1, -1, -1, -1};
        const Status s = gridsample::GridSampleOutputShape(x.View(), grid.View(), y_shape);
        ASSERT_TRUE(s.ok()) << c.what << ": " << s.message();
        EXPECT_EQ(std::vector<int64_t>(y_shape, y_shape + c.y.size()), c.y) << c.what;
      }
    }
  }
}

TEST(GridSampleEdge, EmptyInputWithNonEmptyOutputIsAnError) {
  const std::vector<int64_t> kX[] = {{1, 2, 0, 4}, {1, 2, 3, 0}, {1, 1, 0}, {1, 1, 2, 0, 2}};
  for (const Kernel& kernel : kKernels) {
    for (const std::vector<int64_t>& xs : kX) {
      const size_t r = xs.size() - 2;
      std::vector<int64_t> out(r, 2);
      Tensor x(DType::kFloat32, xs);
      Tensor grid(DType::kFloat32, GridShape(1, out));
      Tensor y(DType::kFloat32, TensorShape(1, xs[1], out));
      y.FillBytes(0xAB);
      const Status s = kernel.grid_sample(x.View(), grid.View(), y.MutableView(), {});
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument)
          << kernel.name << " X shape " << ToString(xs) << " with output " << ToString(out);
      EXPECT_TRUE(y.AllBytesAre(0xAB)) << kernel.name << " wrote y on error";
    }
  }
}

}  // namespace
}  // namespace gridsample_test
