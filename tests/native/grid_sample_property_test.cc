// GridSample's oracle-free properties: identity, translations, ties, rank embedding.
//
// Every expected value here is computed in the test from the rules in DESIGN.md section 2
// (index arithmetic, the Keys kernel, pixel centres) or from X itself; none is copied from
// library output.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "sampling_rules.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

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
            const double atol = m == Mode::kNearest ? 0.0 : 4e-5;  // float32 X computes in float32
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
            const Tensor grid = BuildGrid(gt, 2, in, [&](int64_t, const std::vector<int64_t>& idx) {
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
                          std::string(kernel.name) + " half-pixel shift " + std::to_string(shift) +
                              " rank " + std::to_string(rank) + " in=" + ToString(in) +
                              " grid=" + Name(gt) + ' ' + Describe(o));
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
          Status s =
              kernel.affine_grid(theta.View(), size.data(), size.size(), grid.MutableView(), ao);
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

}  // namespace
}  // namespace gridsample_test
