// Oracle-free properties of GridSample / AffineGrid (DESIGN.md section 2) and the float16/bfloat16 conversions.
//
// Every expected value here is computed in the test from the rules in DESIGN.md section 2
// (index arithmetic, the Keys kernel, base coordinates) or comes from the library's own
// float64 path on the same data (the dtype tests); none is copied from library output.

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "half.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------
// Helpers written from DESIGN.md section 2.

// Where integer tap j of an axis of size s lands after padding, or -1 when zeros padding
// drops it. Reflection is about [-0.5, s-0.5] (align 0) or [0, s-1] (align 1).
int64_t PadIndex(int64_t j, int64_t s, Padding padding, bool align) {
  if (j >= 0 && j < s) return j;
  switch (padding) {
    case Padding::kZeros:
      return -1;
    case Padding::kBorder:
      return j < 0 ? 0 : s - 1;
    case Padding::kReflection: {
      if (align) {
        if (s == 1) return 0;
        const int64_t period = 2 * (s - 1);
        const int64_t m = ((j % period) + period) % period;
        return m <= s - 1 ? m : period - m;
      }
      const int64_t period = 2 * s;
      const int64_t m = ((j % period) + period) % period;
      return m < s ? m : period - 1 - m;
    }
  }
  return -1;
}

// The normalized coordinate whose pixel coordinate is exactly j (the section 2 maps,
// inverted). With s = 1 and align 1 every g maps to 0, so any value will do.
double CentreToGrid(int64_t j, int64_t s, bool align) {
  if (align) return s == 1 ? 0.25 * static_cast<double>(j) : -1.0 + 2.0 * j / (s - 1.0);
  return (2.0 * j + 1.0) / s - 1.0;
}

// Keys cubic kernel, A = -0.75, at distance d from a tap.
double Keys(double d) {
  constexpr double kA = -0.75;
  d = std::fabs(d);
  if (d <= 1.0) return ((kA + 2.0) * d - (kA + 3.0)) * d * d + 1.0;
  if (d < 2.0) return ((kA * d - 5.0 * kA) * d + 8.0 * kA) * d - 4.0 * kA;
  return 0.0;
}

// Builds a grid (n, out..., r) from a function giving the coordinates of one output point
// per spatial axis, outermost first; the grid stores them innermost first (x = W first).
using CoordFn = std::function<std::vector<double>(int64_t n, const std::vector<int64_t>& idx)>;
Tensor BuildGrid(DType t, int64_t n_batch, const std::vector<int64_t>& out, const CoordFn& fn) {
  const size_t r = out.size();
  Tensor grid(t, GridShape(n_batch, out));
  const int64_t points = NumElements(out);
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t p = 0; p < points; ++p) {
      const std::vector<double> c = fn(n, Unravel(p, out));
      for (size_t a = 0; a < r; ++a) {
        grid.Set((n * points + p) * static_cast<int64_t>(r) + static_cast<int64_t>(a),
                 c[r - 1 - a]);
      }
    }
  }
  return grid;
}

// Expected Y where every output point reads exactly one X pixel (or 0): `fn` returns the
// X index per spatial axis, or an empty vector for 0.
using TapFn = std::function<std::vector<int64_t>(const std::vector<int64_t>& idx)>;
Tensor ExpectedFromTaps(const Tensor& x, const std::vector<int64_t>& out, const TapFn& fn) {
  const int64_t n_batch = x.shape()[0], channels = x.shape()[1];
  const std::vector<int64_t> in(x.shape().begin() + 2, x.shape().end());
  Tensor y(DType::kFloat64, TensorShape(n_batch, channels, out));
  const int64_t points = NumElements(out);
  for (int64_t p = 0; p < points; ++p) {
    const std::vector<int64_t> src = fn(Unravel(p, out));
    for (int64_t n = 0; n < n_batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        double v = 0.0;
        if (!src.empty()) {
          std::vector<int64_t> xi{n, c};
          xi.insert(xi.end(), src.begin(), src.end());
          v = x.Get(xi);
        }
        y.Set((n * channels + c) * points + p, v);
      }
    }
  }
  return y;
}

// Compares y with expected element by element; |diff| <= atol + rtol * |expected|.
// Reports at most a few failures per call so a broken kernel stays readable.
void ExpectClose(const Tensor& y, const Tensor& expected, double atol, double rtol,
                 const std::string& what, double* max_diff = nullptr) {
  ASSERT_EQ(y.shape(), expected.shape()) << what;
  int failures = 0;
  for (int64_t i = 0; i < y.size(); ++i) {
    const double a = y.Get(i), b = expected.Get(i);
    const double diff = std::fabs(a - b);
    if (max_diff && std::isfinite(diff)) *max_diff = std::max(*max_diff, diff);
    if (!(diff <= atol + rtol * std::fabs(b)) && failures++ < 5) {
      ADD_FAILURE() << what << ": " << WhereInY(y, i) << " got " << a << " expected " << b
                    << " (diff " << diff << ")";
    }
  }
}

GridSampleOptions Options(Mode m, Padding p, bool align) {
  GridSampleOptions o;
  o.mode = m;
  o.padding = p;
  o.align_corners = align;
  return o;
}

// ---------------------------------------------------------------------------
// Identity and integer translations.

// Sizes where every pixel centre has a dyadic grid coordinate, so float32 grids hold it
// exactly: S - 1 a power of two (align 1), S a power of two (align 0). Size-1 axes too.
std::vector<int64_t> DyadicSizes(size_t rank, bool align) {
  static const std::vector<int64_t> kAlign0[] = {{8}, {4, 8}, {2, 4, 8}, {4, 1, 2, 4}};
  static const std::vector<int64_t> kAlign1[] = {{9}, {5, 3}, {3, 5, 2}, {3, 1, 2, 5}};
  return align ? kAlign1[rank - 1] : kAlign0[rank - 1];
}

TEST(GridSampleProperty, IdentityAlignCornersReproducesXExactly) {
  // g = -1 + 2i/(S-1) is dyadic here, x = (g+1)/2*(S-1) = i exactly, every weight is 0 or 1
  // (Keys at distance 0, 1, 2 is exactly 1, 0, 0), so every mode must return X bit for bit.
  for (const Kernel& kernel : kKernels) {
    for (size_t rank = 1; rank <= 4; ++rank) {
      const std::vector<int64_t> in = DyadicSizes(rank, true);
      std::mt19937 rng(static_cast<uint32_t>(rank));
      const Tensor x = RandomTensor(rng, DType::kFloat32, TensorShape(2, 3, in));
      for (DType gt : kGridDTypes) {
        const Tensor grid = BuildGrid(gt, 2, in, [&](int64_t, const std::vector<int64_t>& idx) {
          std::vector<double> c;
          for (size_t a = 0; a < rank; ++a) c.push_back(CentreToGrid(idx[a], in[a], true));
          return c;
        });
        for (Mode m : kModes) {
          for (Padding p : kPaddings) {
            const GridSampleOptions o = Options(m, p, true);
            Tensor y;
            ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
            ExpectClose(y, x, 0.0, 0.0,
                        std::string(kernel.name) + " identity rank " + std::to_string(rank) +
                            " in=" + ToString(in) + " grid=" + Name(gt) + ' ' + Describe(o));
          }
        }
      }
    }
  }
}

TEST(GridSampleProperty, IdentityAlignCornersAnySize) {
  // For sizes like 7 the grid value -1 + 2i/(S-1) is not exact in float32, so x misses i by
  // about 1e-7 * S: nearest still lands on i, linear / cubic move by at most that times the
  // local slope (X in [-4, 4]); float64 grids are exact to ~1e-15.
  const std::vector<int64_t> kSizes[] = {{7}, {6, 10}, {7, 3, 6}, {3, 6, 1, 7}};
  for (const Kernel& kernel : kKernels) {
    for (size_t rank = 1; rank <= 4; ++rank) {
      const std::vector<int64_t>& in = kSizes[rank - 1];
      std::mt19937 rng(static_cast<uint32_t>(10 + rank));
      const Tensor x = RandomTensor(rng, DType::kFloat32, TensorShape(1, 2, in));
      for (DType gt : {DType::kFloat32, DType::kFloat64}) {
        const Tensor grid = BuildGrid(gt, 1, in, [&](int64_t, const std::vector<int64_t>& idx) {
          std::vector<double> c;
          for (size_t a = 0; a < rank; ++a) c.push_back(CentreToGrid(idx[a], in[a], true));
          return c;
        });
        for (Mode m : kModes) {
          for (Padding p : kPaddings) {
            const GridSampleOptions o = Options(m, p, true);
            Tensor y;
            ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
            const double atol =
                m == Mode::kNearest ? 0.0 : 4e-5;  // float32 X computes in float32
            ExpectClose(y, x, atol, 0.0,
                        std::string(kernel.name) + " identity rank " + std::to_string(rank) +
                            " in=" + ToString(in) + " grid=" + Name(gt) + ' ' + Describe(o));
          }
        }
      }
    }
  }
}

TEST(GridSampleProperty, IntegerTranslationsFollowPadding) {
  // Output pixel i samples the centre of pixel i + k (k differs per axis and reaches past
  // two periods of reflection); the answer is X at PadIndex(i + k) on every axis, or 0.
  // The last two shift by about 2^20 pixels: every coordinate is still exact in float32
  // (at most 24 significant bits), so reflection must land on the exact pixel even there.
  const int64_t kShifts[] = {0, 1, -1, 2, -3, 5, -7, 11, -13, 17, 1048579, -2097157};
  for (const Kernel& kernel : kKernels) {
    for (size_t rank = 1; rank <= 4; ++rank) {
      for (bool align : kAligns) {
        const std::vector<int64_t> in = DyadicSizes(rank, align);
        std::mt19937 rng(static_cast<uint32_t>(100 + rank));
        const Tensor x = RandomTensor(rng, DType::kFloat32, TensorShape(2, 2, in));
        for (int64_t shift : kShifts) {
          auto target = [&](const std::vector<int64_t>& idx, size_t a) {
            return idx[a] + shift + static_cast<int64_t>(a);
          };
          for (DType gt : kGridDTypes) {
            const bool far = std::llabs(shift) > 1000;
            if (far && (gt == DType::kFloat16 || gt == DType::kBFloat16)) continue;  // inexact
            const Tensor grid =
                BuildGrid(gt, 2, in, [&](int64_t, const std::vector<int64_t>& idx) {
                  std::vector<double> c;
                  for (size_t a = 0; a < rank; ++a) {
                    c.push_back(CentreToGrid(target(idx, a), in[a], align));
                  }
                  return c;
                });
            for (Padding p : kPaddings) {
              const Tensor expected = ExpectedFromTaps(x, in, [&](const std::vector<int64_t>& idx) {
                std::vector<int64_t> src;
                for (size_t a = 0; a < rank; ++a) {
                  // S = 1 with align 1 maps every coordinate to pixel 0.
                  const int64_t j = (align && in[a] == 1) ? 0 : target(idx, a);
                  const int64_t q = PadIndex(j, in[a], p, align);
                  if (q < 0) return std::vector<int64_t>{};
                  src.push_back(q);
                }
                return src;
              });
              for (Mode m : kModes) {
                const GridSampleOptions o = Options(m, p, align);
                Tensor y;
                ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
                ExpectClose(y, expected, 0.0, 0.0,
                            std::string(kernel.name) + " shift " + std::to_string(shift) +
                                " rank " + std::to_string(rank) + " in=" + ToString(in) +
                                " grid=" + Name(gt) + ' ' + Describe(o));
              }
            }
          }
        }
      }
    }
  }
}

TEST(GridSampleProperty, NearestTiesRoundHalfToEvenThenPad) {
  // Output pixel i samples x = i + k + 0.5 exactly: nearest rounds half to even first and
  // then pads the integer index (so beyond an align-0 reflection border the tie follows
  // ONNX, not PyTorch's reflect-then-round).
  const int64_t kShifts[] = {0, -1, -2, -3, 1, 2, 3, 6, -9, 13};
  for (const Kernel& kernel : kKernels) {
    for (size_t rank = 1; rank <= 3; ++rank) {
      for (bool align : kAligns) {
        const std::vector<int64_t> in = DyadicSizes(rank, align);
        std::mt19937 rng(static_cast<uint32_t>(150 + rank));
        const Tensor x = RandomTensor(rng, DType::kFloat32, TensorShape(1, 2, in));
        for (int64_t shift : kShifts) {
          auto target = [&](const std::vector<int64_t>& idx, size_t a) {
            return static_cast<double>(idx[a] + shift + static_cast<int64_t>(a)) + 0.5;
          };
          for (DType gt : {DType::kFloat32, DType::kFloat64, DType::kBFloat16}) {
            const Tensor grid = BuildGrid(gt, 1, in, [&](int64_t, const std::vector<int64_t>& idx) {
              std::vector<double> c;
              for (size_t a = 0; a < rank; ++a) {
                const double px = target(idx, a);
                // Inverse of the section 2 maps for a half-integer pixel coordinate.
                c.push_back(align ? (in[a] == 1 ? 0.0 : 2.0 * px / (in[a] - 1.0) - 1.0)
                                  : (2.0 * px + 1.0) / in[a] - 1.0);
              }
              return c;
            });
            for (Padding p : kPaddings) {
              const Tensor expected = ExpectedFromTaps(x, in, [&](const std::vector<int64_t>& idx) {
                std::vector<int64_t> src;
                for (size_t a = 0; a < rank; ++a) {
                  const int64_t j = (align && in[a] == 1)
                                        ? 0
                                        : static_cast<int64_t>(std::nearbyint(target(idx, a)));
                  const int64_t q = PadIndex(j, in[a], p, align);
                  if (q < 0) return std::vector<int64_t>{};
                  src.push_back(q);
                }
                return src;
              });
              const GridSampleOptions o = Options(Mode::kNearest, p, align);
              Tensor y;
              ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
              ExpectClose(y, expected, 0.0, 0.0,
                          std::string(kernel.name) + " half-pixel shift " +
                              std::to_string(shift) + " rank " + std::to_string(rank) +
                              " in=" + ToString(in) + " grid=" + Name(gt) + ' ' + Describe(o));
            }
          }
        }
      }
    }
  }
}

TEST(GridSampleProperty, AffineIdentityRoundTrip) {
  // AffineGrid(identity) puts every point on a pixel centre for either align_corners (align 0:
  // (2i+1)/S - 1 -> x = i; align 1: -1 + 2i/(S-1) -> x = i), so GridSample with the same
  // align_corners gives X back up to float32 coordinate rounding (X in [-1, 1]).
  const std::vector<int64_t> kSizes2d[] = {{5, 7}, {1, 6}, {4, 1}, {8, 8}};
  const std::vector<int64_t> kSizes3d[] = {{3, 5, 4}, {1, 4, 6}, {2, 1, 1}};
  for (const Kernel& kernel : kKernels) {
    for (DType t : {DType::kFloat32, DType::kFloat64}) {
      for (bool align : kAligns) {
        std::vector<std::vector<int64_t>> all(std::begin(kSizes2d), std::end(kSizes2d));
        all.insert(all.end(), std::begin(kSizes3d), std::end(kSizes3d));
        for (const std::vector<int64_t>& in : all) {
          const size_t r = in.size();
          constexpr int64_t kN = 2, kC = 3;
          Tensor theta(t, {kN, static_cast<int64_t>(r), static_cast<int64_t>(r + 1)});
          for (int64_t n = 0; n < kN; ++n) {
            for (size_t i = 0; i < r; ++i) {
              theta.Set({n, static_cast<int64_t>(i), static_cast<int64_t>(i)}, 1.0);
            }
          }
          const std::vector<int64_t> size = TensorShape(kN, kC, in);
          Tensor grid(t, GridShape(kN, in));
          AffineGridOptions ao;
          ao.align_corners = align;
          Status s = kernel.affine_grid(theta.View(), size.data(), size.size(),
                                        grid.MutableView(), ao);
          ASSERT_TRUE(s.ok()) << s.message();
          std::mt19937 rng(static_cast<uint32_t>(r * 31 + in[0]));
          const Tensor x = RandomTensor(rng, t, size, 1.0);
          for (Mode m : kModes) {
            for (Padding p : kPaddings) {
              const GridSampleOptions o = Options(m, p, align);
              Tensor y;
              s = RunGridSample(kernel.grid_sample, x, grid, o, &y);
              ASSERT_TRUE(s.ok()) << s.message();
              ExpectClose(y, x, t == DType::kFloat64 ? 1e-12 : 1e-5, 0.0,
                          std::string(kernel.name) + " affine identity in=" + ToString(in) +
                              " dtype=" + Name(t) + ' ' + Describe(o));
            }
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Rank embedding: an r-D problem equals the (r+1)-D problem with a new outermost axis of
// size 1, sampled at a coordinate that maps exactly to row 0 (align 1: any value, since
// S = 1 maps everything to 0; align 0: g = 0 gives x = (1*1 - 1)/2 = 0).

TEST(GridSampleProperty, RankEmbedding) {
  const std::vector<int64_t> kIn[] = {{7}, {5, 6}, {3, 4, 5}};
  const std::vector<int64_t> kOut[] = {{11}, {4, 7}, {3, 2, 4}};
  double max_diff = 0.0;
  for (const Kernel& kernel : kKernels) {
    for (size_t r = 1; r <= 3; ++r) {
      const std::vector<int64_t>& in = kIn[r - 1];
      const std::vector<int64_t>& out = kOut[r - 1];
      std::mt19937 rng(static_cast<uint32_t>(200 + r));
      const Tensor x = RandomTensor(rng, DType::kFloat32, TensorShape(2, 3, in));
      const Tensor grid = RandomGrid(rng, DType::kFloat32, GridShape(2, out), 1.6);
      std::vector<int64_t> in_up{1}, out_up{1};
      in_up.insert(in_up.end(), in.begin(), in.end());
      out_up.insert(out_up.end(), out.begin(), out.end());
      // Same X data: adding a size-1 axis does not change the memory layout.
      Tensor x_up(DType::kFloat32, TensorShape(2, 3, in_up));
      for (int64_t i = 0; i < x.size(); ++i) x_up.Set(i, x.Get(i));
      for (bool align : kAligns) {
        // Grid: copy the r coordinates, append the new outermost axis's coordinate last.
        Tensor grid_up(DType::kFloat32, GridShape(2, out_up));
        const int64_t points = 2 * NumElements(out);
        for (int64_t p = 0; p < points; ++p) {
          for (size_t a = 0; a < r; ++a) {
            grid_up.Set(p * static_cast<int64_t>(r + 1) + static_cast<int64_t>(a),
                        grid.Get(p * static_cast<int64_t>(r) + static_cast<int64_t>(a)));
          }
          const double extra = align ? RandomDyadic(rng, -3.0, 3.0) : 0.0;
          grid_up.Set(p * static_cast<int64_t>(r + 1) + static_cast<int64_t>(r), extra);
        }
        for (Mode m : kModes) {
          for (Padding p : kPaddings) {
            const GridSampleOptions o = Options(m, p, align);
            Tensor y, y_up;
            ASSERT_TRUE(RunGridSample(kernel.grid_sample, x, grid, o, &y).ok());
            ASSERT_TRUE(RunGridSample(kernel.grid_sample, x_up, grid_up, o, &y_up).ok());
            ASSERT_EQ(y.size(), y_up.size());
            Tensor y_flat(DType::kFloat64, y.shape());
            for (int64_t i = 0; i < y.size(); ++i) y_flat.Set(i, y_up.Get(i));
            // Exact when both ranks take the same kernel; a fast path and the reference
            // may differ by a few float32 ulps (taps padded onto one pixel are summed first).
            ExpectClose(y_flat, y, 1e-6, 2e-6,
                        std::string(kernel.name) + " rank " + std::to_string(r) + " vs " +
                            std::to_string(r + 1) + " with a size-1 axis, " + Describe(o),
                        &max_diff);
          }
        }
      }
    }
  }
  RecordProperty("max_abs_diff", std::to_string(max_diff));
  std::printf("[ RankEmbedding ] largest |y_r - y_r+1| = %g\n", max_diff);
}

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
                                       " grid=" + Name(gt) + " rank " + std::to_string(r) +
                                       ' ' + Describe(o);
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
                const double diff = IsInteger(xt) || m == Mode::kNearest
                                        ? std::fabs(got - want)
                                        : std::fabs(got - exact);
                if (!(diff <= allowed) && failures++ < 5) {
                  ADD_FAILURE() << what << ": " << WhereInY(y, i) << " got " << got
                                << " float64 path " << exact << " rounded " << want
                                << " (allowed " << allowed << ")";
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
        const bool in_double =
            xt == DType::kFloat64 || xt == DType::kInt32 || xt == DType::kUint32;
        if (!in_double) continue;
        for (size_t r = 1; r <= 3; ++r) {
          std::mt19937 rng(static_cast<uint32_t>(700 + r + 13 * static_cast<int>(xt)));
          const Tensor x = RandomTensor(rng, xt, TensorShape(1, 2, kIn[r - 1]));
          double max_abs_x = 0.0;
          for (int64_t i = 0; i < x.size(); ++i) max_abs_x = std::max(max_abs_x, std::fabs(x.Get(i)));
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
                                  << ": not the double result rounded once (allowed "
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
                        ADD_FAILURE() << kernel.name << " rank " << r << " grid=" << Name(gt)
                                      << ' ' << Describe(o) << ": coordinate " << axis
                                      << " of point " << point << " = " << bad << "; "
                                      << WhereInY(y, i) << " got " << got << " expected "
                                      << want << (hit ? " (the non-finite point)" : " (a neighbour)");
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
              const double got = y.Get(c * static_cast<int64_t>(coords.size()) +
                                       static_cast<int64_t>(pt));
              std::ostringstream where;
              where << kernel.name << " rank " << r << " grid=" << Name(gt) << ' ' << Describe(o)
                    << " c=" << c << " point " << pt << " coords(outermost first)="
                    << ToString(coords[pt]);
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
                    << where.str() << " got " << got << " outside [" << lo << ", " << hi
                    << "] +- " << slack;
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
  const std::vector<double> kG = {-3.0, -1.5, -1.0, -0.75, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0};
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
          const Tensor grid = MakeTensor(DType::kFloat32, {1, static_cast<int64_t>(gv.size()), 1}, gv);
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

// ---------------------------------------------------------------------------
// AffineGrid.

double BaseCoordinate(int64_t i, int64_t s, bool align) {
  if (align) return s == 1 ? 0.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(s - 1);
  return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(s) - 1.0;
}

// grid[n, spatial..., a] = sum_b theta[n, a, b] * base_b + theta[n, a, r], base innermost first.
Tensor AffineExpected(const Tensor& theta, const std::vector<int64_t>& spatial, bool align) {
  const size_t r = spatial.size();
  const int64_t n_batch = theta.shape()[0];
  Tensor grid(DType::kFloat64, GridShape(n_batch, spatial));
  const int64_t points = NumElements(spatial);
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t p = 0; p < points; ++p) {
      const std::vector<int64_t> idx = Unravel(p, spatial);
      std::vector<double> base(r);  // innermost (x) first
      for (size_t a = 0; a < r; ++a) base[a] = BaseCoordinate(idx[r - 1 - a], spatial[r - 1 - a], align);
      for (size_t a = 0; a < r; ++a) {
        double v = theta.Get({n, static_cast<int64_t>(a), static_cast<int64_t>(r)});
        for (size_t b = 0; b < r; ++b) {
          v += theta.Get({n, static_cast<int64_t>(a), static_cast<int64_t>(b)}) * base[b];
        }
        grid.Set((n * points + p) * static_cast<int64_t>(r) + static_cast<int64_t>(a), v);
      }
    }
  }
  return grid;
}

Tensor IdentityTheta(DType t, int64_t n_batch, size_t r) {
  Tensor theta(t, {n_batch, static_cast<int64_t>(r), static_cast<int64_t>(r + 1)});
  for (int64_t n = 0; n < n_batch; ++n) {
    for (size_t i = 0; i < r; ++i) theta.Set({n, static_cast<int64_t>(i), static_cast<int64_t>(i)}, 1.0);
  }
  return theta;
}

const std::vector<int64_t> kAffineSpatial[] = {
    {4, 5}, {1, 6}, {5, 1}, {1, 1}, {7, 3}, {2, 3, 4}, {1, 4, 5}, {3, 1, 1}, {1, 1, 1}, {4, 2, 6}};

// Storage tolerance of a grid value v computed in float32 (f16/bf16) or double.
double AffineTolerance(DType t, double v) {
  switch (t) {
    case DType::kFloat64: return 1e-14 * (1.0 + std::fabs(v));
    case DType::kFloat32: return 1e-6 * (1.0 + std::fabs(v));
    default: return Ulp(v, t) + 1e-6 * (1.0 + std::fabs(v));
  }
}

TEST(AffineGridProperty, IdentityGivesBaseCoordinates) {
  for (const Kernel& kernel : kKernels) {
    for (DType t : kGridDTypes) {
      for (bool align : kAligns) {
        for (const std::vector<int64_t>& spatial : kAffineSpatial) {
          const size_t r = spatial.size();
          const Tensor theta = IdentityTheta(t, 2, r);
          const std::vector<int64_t> size = TensorShape(2, 3, spatial);
          Tensor grid(t, GridShape(2, spatial));
          AffineGridOptions ao;
          ao.align_corners = align;
          const Status s = kernel.affine_grid(theta.View(), size.data(), size.size(),
                                              grid.MutableView(), ao);
          ASSERT_TRUE(s.ok()) << s.message();
          const int64_t points = NumElements(spatial);
          for (int64_t i = 0; i < grid.size(); ++i) {
            const int64_t a = i % static_cast<int64_t>(r);  // 0 = x (innermost axis)
            const int64_t p = (i / static_cast<int64_t>(r)) % points;
            const std::vector<int64_t> idx = Unravel(p, spatial);
            const size_t axis = r - 1 - static_cast<size_t>(a);
            const double want = BaseCoordinate(idx[axis], spatial[axis], align);
            EXPECT_NEAR(grid.Get(i), want, AffineTolerance(t, want))
                << kernel.name << " dtype=" << Name(t) << " align_corners=" << align
                << " size=" << ToString(size) << " point " << ToString(idx) << " component " << a;
          }
        }
      }
    }
  }
}

TEST(AffineGridProperty, RotationScaleTranslationMatchesDouble) {
  for (const Kernel& kernel : kKernels) {
    for (DType t : kGridDTypes) {
      for (bool align : kAligns) {
        for (const std::vector<int64_t>& spatial : kAffineSpatial) {
          const size_t r = spatial.size();
          constexpr int64_t kN = 3;
          std::mt19937 rng(static_cast<uint32_t>(600 + r + spatial[0]));
          // Batch 0: a rotation by 30 degrees about the last axis, scaled, translated;
          // others random. Values are rounded to t first so the double oracle sees the
          // same theta.
          Tensor theta(t, {kN, static_cast<int64_t>(r), static_cast<int64_t>(r + 1)});
          for (int64_t i = 0; i < theta.size(); ++i) theta.Set(i, RandomDyadic(rng, -2.0, 2.0, 8));
          const double c = std::cos(kPi / 6) * 1.3, sn = std::sin(kPi / 6) * 1.3;
          theta.Set({0, 0, 0}, c);
          theta.Set({0, 0, 1}, -sn);
          theta.Set({0, 1, 0}, sn);
          theta.Set({0, 1, 1}, c);
          theta.Set({0, 0, static_cast<int64_t>(r)}, 0.25);
          theta.Set({0, 1, static_cast<int64_t>(r)}, -0.5);
          const std::vector<int64_t> size = TensorShape(kN, 1, spatial);
          Tensor grid(t, GridShape(kN, spatial));
          AffineGridOptions ao;
          ao.align_corners = align;
          const Status s = kernel.affine_grid(theta.View(), size.data(), size.size(),
                                              grid.MutableView(), ao);
          ASSERT_TRUE(s.ok()) << s.message();
          const Tensor expected = AffineExpected(theta, spatial, align);
          int failures = 0;
          for (int64_t i = 0; i < grid.size(); ++i) {
            const double want = expected.Get(i);
            // A sum of r+1 products of magnitude <= 2: scale the tolerance with it.
            const double tol = AffineTolerance(t, want) * 4.0;
            if (!(std::fabs(grid.Get(i) - want) <= tol) && failures++ < 5) {
              ADD_FAILURE() << kernel.name << " dtype=" << Name(t) << " align_corners=" << align
                            << " size=" << ToString(size) << " element " << i << " ("
                            << ToString(Unravel(i, grid.shape())) << ") got " << grid.Get(i)
                            << " expected " << want;
            }
          }
        }
      }
    }
  }
}

TEST(AffineGridProperty, EmptySizesSucceedAndWriteNothing) {
  const std::vector<int64_t> kSizes[] = {{0, 3, 4, 5}, {2, 3, 0, 5}, {2, 3, 4, 0},
                                         {0, 1, 2, 3, 4}, {1, 1, 2, 0, 4}};
  for (const Kernel& kernel : kKernels) {
    for (const std::vector<int64_t>& size : kSizes) {
      const size_t r = size.size() - 2;
      const Tensor theta = IdentityTheta(DType::kFloat32, size[0], r);
      std::vector<int64_t> gshape = GridShape(size[0], std::vector<int64_t>(size.begin() + 2, size.end()));
      std::vector<uint8_t> sentinel(64, 0xAB);
      MutableTensorView gv;
      gv.data = sentinel.data();
      gv.dtype = DType::kFloat32;
      gv.shape = gshape.data();
      gv.rank = gshape.size();
      const Status s = kernel.affine_grid(theta.View(), size.data(), size.size(), gv, {});
      EXPECT_TRUE(s.ok()) << kernel.name << " size=" << ToString(size) << ": " << s.message();
      for (uint8_t b : sentinel) ASSERT_EQ(b, 0xAB) << kernel.name << " size=" << ToString(size);
      int64_t out_shape[5] = {};
      ASSERT_TRUE(gridsample::AffineGridOutputShape(size.data(), size.size(), out_shape).ok());
      EXPECT_EQ(std::vector<int64_t>(out_shape, out_shape + gshape.size()), gshape);
    }
  }
}

TEST(AffineGridProperty, ZeroChannelsStillProducesTheGrid) {
  // C does not enter the grid's shape (N, H, W, 2): size (1, 0, 2, 3) is a full grid.
  for (const Kernel& kernel : kKernels) {
    const Tensor theta = IdentityTheta(DType::kFloat32, 1, 2);
    const std::vector<int64_t> size = {1, 0, 2, 3};
    Tensor grid(DType::kFloat32, {1, 2, 3, 2});
    const Status s = kernel.affine_grid(theta.View(), size.data(), size.size(),
                                        grid.MutableView(), {});
    ASSERT_TRUE(s.ok()) << kernel.name << ": " << s.message();
    const Tensor expected = AffineExpected(theta, {2, 3}, false);
    for (int64_t i = 0; i < grid.size(); ++i) {
      EXPECT_NEAR(grid.Get(i), expected.Get(i), 1e-6) << kernel.name << " element " << i;
    }
  }
}

TEST(AffineGridProperty, Float16IsRoundedOnce) {
  // theta row (2^-11, 2^-24, 1), align 1, size (1, 1, 4, 2): at h = 2, w = 1 the base
  // point is (1, 1/3), so x = 1 + 2^-11 + 2^-24/3, just above the float16 midpoint
  // between 1 and 1 + 2^-10. Rounded once that is 1 + 2^-10; rounding through float32
  // first lands exactly on the midpoint and would give 1 (round half to even).
  for (const Kernel& kernel : kKernels) {
    Tensor theta(DType::kFloat16, {1, 2, 3});
    const double row[6] = {std::ldexp(1.0, -11), std::ldexp(1.0, -24), 1.0, 0.0, 1.0, 0.0};
    for (int i = 0; i < 6; ++i) theta.Set(i, row[i]);
    const std::vector<int64_t> size = {1, 1, 4, 2};
    Tensor grid(DType::kFloat16, {1, 4, 2, 2});
    AffineGridOptions o;
    o.align_corners = true;
    const Status s = kernel.affine_grid(theta.View(), size.data(), size.size(),
                                        grid.MutableView(), o);
    ASSERT_TRUE(s.ok()) << kernel.name << ": " << s.message();
    EXPECT_EQ(grid.Get(((0 * 4 + 2) * 2 + 1) * 2 + 0), 1.0 + std::ldexp(1.0, -10)) << kernel.name;
  }
}

// ---------------------------------------------------------------------------
// float16 / bfloat16 conversions (src/kernels/half.h) against the independent rounding in
// test_util.h.

bool IsHalfNaN(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }
bool IsBFloat16NaN(uint16_t b) { return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0; }
float FloatFromBits(uint32_t u) { return gridsample::BitsToFloat(u); }

uint16_t ExpectedHalf(float f) {
  if (std::isnan(f)) return 0x7E00u;
  return HalfBitsFromDouble(RoundToHalf(static_cast<double>(f)));
}
uint16_t ExpectedBFloat16(float f) {
  if (std::isnan(f)) return 0x7FC0u;
  return BFloat16BitsFromDouble(RoundToBFloat16(static_cast<double>(f)));
}

TEST(HalfConversion, AllHalvesDecodeExactlyAndRoundTrip) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float f = gridsample::HalfToFloat(bits);
    const double want = HalfBitsToDouble(bits);
    if (IsHalfNaN(bits)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << "half 0x" << h;
      ASSERT_TRUE(IsHalfNaN(gridsample::FloatToHalf(f))) << std::hex << "half NaN 0x" << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), want) << std::hex << "half 0x" << h;
    ASSERT_EQ(std::signbit(f), (h & 0x8000u) != 0) << std::hex << "sign of half 0x" << h;
    ASSERT_EQ(gridsample::FloatToHalf(f), bits) << std::hex << "round trip of half 0x" << h;
  }
}

TEST(HalfConversion, MidpointsRoundToEven) {
  // Between consecutive finite halves a < b (same sign): the exact midpoint goes to the
  // one with an even mantissa, one float ulp either side goes to the nearer one.
  for (uint32_t h = 0; h < 0x7BFFu; ++h) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const auto lo_bits = static_cast<uint16_t>(h | sign);
      const auto hi_bits = static_cast<uint16_t>((h + 1) | sign);
      const double mid = (HalfBitsToDouble(lo_bits) + HalfBitsToDouble(hi_bits)) / 2.0;
      const auto fmid = static_cast<float>(mid);  // exact: 12 significant bits
      ASSERT_EQ(static_cast<double>(fmid), mid);
      const uint16_t even = (h & 1u) ? hi_bits : lo_bits;
      ASSERT_EQ(gridsample::FloatToHalf(fmid), even) << std::hex << "midpoint after 0x" << lo_bits;
      const float below = std::nextafter(fmid, 0.0f), above = std::nextafter(fmid, 2.0f * fmid);
      ASSERT_EQ(gridsample::FloatToHalf(below), lo_bits) << std::hex << "just below mid 0x" << lo_bits;
      ASSERT_EQ(gridsample::FloatToHalf(above), hi_bits) << std::hex << "just above mid 0x" << lo_bits;
    }
  }
}

TEST(HalfConversion, SpecialValues) {
  struct Case {
    float f;
    uint16_t want;
  };
  const Case kCases[] = {
      {1.0f + 0x1p-11f, 0x3C00u},           // tie -> even 1.0
      {1.0f + 3 * 0x1p-11f, 0x3C02u},       // tie -> even 1 + 2^-9
      {65504.0f, 0x7BFFu},                  // largest half
      {65519.996f, 0x7BFFu},                // just below the overflow tie
      {65520.0f, 0x7C00u},                  // tie between 65504 and 2^16 -> even -> inf
      {FLT_MAX, 0x7C00u},
      {-FLT_MAX, 0xFC00u},
      {HUGE_VALF, 0x7C00u},
      {-HUGE_VALF, 0xFC00u},
      {0x1p-24f, 0x0001u},                  // smallest subnormal
      {0x1p-25f, 0x0000u},                  // tie with 0 -> even 0
      {0x1.000002p-25f, 0x0001u},           // just above that tie
      {3 * 0x1p-25f, 0x0002u},              // tie between 1 and 2 ulps -> 2
      {0x1p-14f - 0x1p-25f, 0x0400u},       // tie between largest subnormal and smallest normal
      {0x1p-14f, 0x0400u},                  // smallest normal
      {FLT_TRUE_MIN, 0x0000u},
      {-FLT_TRUE_MIN, 0x8000u},
      {-0.0f, 0x8000u},
      {0.0f, 0x0000u},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(gridsample::FloatToHalf(c.f), c.want) << std::hexfloat << c.f;
    EXPECT_EQ(ExpectedHalf(c.f), c.want) << "test oracle disagrees on " << std::hexfloat << c.f;
  }
  // NaN stays NaN, including a float NaN whose payload is only in the bits a half drops.
  for (uint32_t bits : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0x7F802000u}) {
    EXPECT_TRUE(IsHalfNaN(gridsample::FloatToHalf(FloatFromBits(bits)))) << std::hex << bits;
  }
}

TEST(HalfConversion, SampledFloatsMatchIndependentRounding) {
  // Every 4099th float bit pattern (~1M values over all exponents and both signs).
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 4099) {
    const float f = FloatFromBits(static_cast<uint32_t>(u));
    const uint16_t got = gridsample::FloatToHalf(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(IsHalfNaN(got)) << std::hex << u;
      continue;
    }
    ASSERT_EQ(got, ExpectedHalf(f)) << std::hex << "float bits 0x" << u << " = "
                                    << std::hexfloat << f;
  }
}

TEST(BFloat16Conversion, AllPatternsDecodeExactlyAndRoundTrip) {
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float f = gridsample::BFloat16ToFloat(bits);
    if (IsBFloat16NaN(bits)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_TRUE(IsBFloat16NaN(gridsample::FloatToBFloat16(f))) << std::hex << b;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), BFloat16BitsToDouble(bits)) << std::hex << b;
    ASSERT_EQ(gridsample::FloatToBFloat16(f), bits) << std::hex << "round trip of 0x" << b;
  }
}

TEST(BFloat16Conversion, MidpointsRoundToEven) {
  for (uint32_t b = 0; b < 0x7F7Fu; ++b) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const auto lo_bits = static_cast<uint16_t>(b | sign);
      const auto hi_bits = static_cast<uint16_t>((b + 1) | sign);
      // The midpoint's float bits are lo's bits followed by 0x8000.
      const float mid = FloatFromBits((static_cast<uint32_t>(lo_bits) << 16) | 0x8000u);
      const uint16_t even = (b & 1u) ? hi_bits : lo_bits;
      ASSERT_EQ(gridsample::FloatToBFloat16(mid), even) << std::hex << "midpoint after 0x" << lo_bits;
      ASSERT_EQ(gridsample::FloatToBFloat16(FloatFromBits((static_cast<uint32_t>(lo_bits) << 16) | 0x7FFFu)),
                lo_bits);
      ASSERT_EQ(gridsample::FloatToBFloat16(FloatFromBits((static_cast<uint32_t>(lo_bits) << 16) | 0x8001u)),
                hi_bits);
    }
  }
}

TEST(BFloat16Conversion, SpecialValues) {
  struct Case {
    uint32_t float_bits;
    uint16_t want;
  };
  const Case kCases[] = {
      {0x3F808000u, 0x3F80u},  // tie -> even
      {0x3F818000u, 0x3F82u},  // tie -> even (up)
      {0x7F7F7FFFu, 0x7F7Fu},  // just below the overflow tie
      {0x7F7F8000u, 0x7F80u},  // tie between the largest bfloat16 and 2^128 -> inf
      {0x7F7FFFFFu, 0x7F80u},  // FLT_MAX -> inf
      {0xFF7FFFFFu, 0xFF80u},  // -FLT_MAX -> -inf
      {0x7F800000u, 0x7F80u},  // inf
      {0x00008000u, 0x0000u},  // subnormal tie with 0 -> 0
      {0x00018000u, 0x0002u},  // subnormal tie -> even
      {0x00000001u, 0x0000u},
      {0x80000001u, 0x8000u},
      {0x007FFFFFu, 0x0080u},  // largest float subnormal rounds up to the smallest normal
  };
  for (const Case& c : kCases) {
    const float f = FloatFromBits(c.float_bits);
    EXPECT_EQ(gridsample::FloatToBFloat16(f), c.want) << std::hex << c.float_bits;
    EXPECT_EQ(ExpectedBFloat16(f), c.want) << "test oracle disagrees on " << std::hex << c.float_bits;
  }
  for (uint32_t bits : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0x7F80FFFFu}) {
    EXPECT_TRUE(IsBFloat16NaN(gridsample::FloatToBFloat16(FloatFromBits(bits)))) << std::hex << bits;
  }
}

TEST(BFloat16Conversion, SampledFloatsMatchIndependentRounding) {
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 4099) {
    const float f = FloatFromBits(static_cast<uint32_t>(u));
    const uint16_t got = gridsample::FloatToBFloat16(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(IsBFloat16NaN(got)) << std::hex << u;
      continue;
    }
    ASSERT_EQ(got, ExpectedBFloat16(f)) << std::hex << "float bits 0x" << u;
  }
}

// ---------------------------------------------------------------------------
// Public entry point (SIMD where compiled) against the scalar reference, XNNPACK style,
// on shapes that exercise vector bodies, tails and far-outside coordinates.

TEST(GridSampleTester, PublicMatchesReference) {
  struct Shape {
    std::vector<int64_t> in, out;
  };
  const Shape kShapes[] = {
      {{13}, {37}}, {{5, 7}, {4, 9}}, {{11, 19}, {17, 33}}, {{1, 9}, {3, 8}},
      {{4, 5, 6}, {3, 5, 9}}, {{3, 2, 4, 5}, {2, 3, 2, 7}}};
  uint32_t seed = 1;
  for (const Shape& shape : kShapes) {
    for (Mode m : kModes) {
      for (Padding p : kPaddings) {
        for (bool align : kAligns) {
          for (DType xt : {DType::kFloat32, DType::kUint8, DType::kFloat16}) {
            for (double range : {1.1, 3.5}) {
              GridSampleTester()
                  .batch(2)
                  .channels(3)
                  .in(shape.in)
                  .out(shape.out)
                  .mode(m)
                  .padding(p)
                  .align_corners(align)
                  .x_dtype(xt)
                  .grid_range(range)
                  .seed(seed++)
                  .Test();
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
