// AffineGrid's oracle-free properties: base coordinates, affine maps, empty sizes, rounding.

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sampling_rules.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

constexpr double kPi = 3.14159265358979323846;

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
      for (size_t a = 0; a < r; ++a)
        base[a] = BaseCoordinate(idx[r - 1 - a], spatial[r - 1 - a], align);
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
    for (size_t i = 0; i < r; ++i)
      theta.Set({n, static_cast<int64_t>(i), static_cast<int64_t>(i)}, 1.0);
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
          const Status s =
              kernel.affine_grid(theta.View(), size.data(), size.size(), grid.MutableView(), ao);
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
          const Status s =
              kernel.affine_grid(theta.View(), size.data(), size.size(), grid.MutableView(), ao);
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
  const std::vector<int64_t> kSizes[] = {
      {0, 3, 4, 5}, {2, 3, 0, 5}, {2, 3, 4, 0}, {0, 1, 2, 3, 4}, {1, 1, 2, 0, 4}};
  for (const Kernel& kernel : kKernels) {
    for (const std::vector<int64_t>& size : kSizes) {
      const size_t r = size.size() - 2;
      const Tensor theta = IdentityTheta(DType::kFloat32, size[0], r);
      std::vector<int64_t> gshape =
          GridShape(size[0], std::vector<int64_t>(size.begin() + 2, size.end()));
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
    const Status s =
        kernel.affine_grid(theta.View(), size.data(), size.size(), grid.MutableView(), {});
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
    const Status s =
        kernel.affine_grid(theta.View(), size.data(), size.size(), grid.MutableView(), o);
    ASSERT_TRUE(s.ok()) << kernel.name << ": " << s.message();
    EXPECT_EQ(grid.Get(((0 * 4 + 2) * 2 + 1) * 2 + 0), 1.0 + std::ldexp(1.0, -10)) << kernel.name;
  }
}

}  // namespace
}  // namespace gridsample_test
