// Separable AffineGrid for float32 and float64 theta, 2-D and 3-D, equal to the reference bit
// for bit: the products theta * base are computed once per column (x) and once per row (y,
// z); each grid value then costs two or three double additions in the reference's order and
// one rounding (see sources/affine_sums-inl.h), instead of the reference's divisions and products
// per value.
#include <cstdint>
#include <cstring>

#include "drivers/fast.h"
#include "rules/affine_base.h"
#include "threads/parallel.h"

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "drivers/coordinates_driver.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "sources/affine_sums-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// float32 theta (N, r, r + 1), r = 2 or 3: the grid (N, [D,] H, W, r), computed in the order
// it is stored: the column terms are kept interleaved like the grid (a[j * r + k] for column
// j, coordinate k), and a group of Lanes points fills r vectors whose lanes hold different
// coordinates, so each lane adds its own coordinate's row terms. No shuffles.
template <int kRank>
HWY_NOINLINE void AffineGridF32(const float* theta_in, int64_t n_count, const int64_t* spatial,
                                bool align, const Threads& threads, float* grid) {
  const AffineDF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const int64_t depth = kRank == 3 ? spatial[0] : 1;
  const int64_t h = spatial[kRank - 2], w = spatial[kRank - 1];
  const RowUnits units{(w + kAffineTile - 1) / kAffineTile, depth * h};
  const int64_t unit_cost = (w < kAffineTile ? w : kAffineTile) * kRank;  // values written
  ParallelUnits(threads, n_count * units.PerItem(), unit_cost, [&](int64_t begin, int64_t end) {
    HWY_ALIGN double a[(kAffineTile + kAffineMaxLanes) * kRank];
    double th[kRank][kRank + 1];
    int64_t item = -1, tile = -1, j0 = 0;
    int count = 0;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t n = units.Item(u), t = units.Tile(u), zi = units.Row(u);
      if (n != item) {
        item = n;
        tile = -1;
        for (int r = 0; r < kRank; ++r) {
          for (int k = 0; k <= kRank; ++k) {
            th[r][k] = static_cast<double>(theta_in[(n * kRank + r) * (kRank + 1) + k]);
          }
        }
      }
      if (t != tile) {
        tile = t;
        j0 = t * kAffineTile;
        count = static_cast<int>(w - j0 < kAffineTile ? w - j0 : kAffineTile);
        const int padded = (count + lanes - 1) / lanes * lanes;
        for (int r = 0; r < kRank; ++r)
          AffineColumnTerms(th[r][0], j0, count, padded, w, align, a + r, kRank);
      }
      const int64_t z = zi / h, i = zi % h;
      const double bz = kRank == 3 ? AffineBaseCoordinate(z, depth, align) : 0.0;
      const double by = AffineBaseCoordinate(i, h, align);
      // The terms after the column's, in the reference's order: y, [z,] constant; then
      // spread over the lanes: lane l of vector v holds coordinate (v * lanes + l) % r.
      double terms[kRank][kRank];
      AffineRowTerms<kRank>(&th[0][0], by, bz, terms);
      HWY_ALIGN double lane_terms[kRank][kRank][kAffineMaxLanes];
      for (int v = 0; v < kRank; ++v) {
        for (int l = 0; l < lanes; ++l) {
          for (int k = 0; k < kRank; ++k) {
            lane_terms[v][k][l] = terms[(v * lanes + l) % kRank][k];
          }
        }
      }
      float* out = grid + ((n * depth * h + zi) * w + j0) * kRank;
      for (int j = 0; j < count; j += lanes) {
        HWY_ALIGN float part[kRank * kAffineMaxLanes];
        const bool full = count - j >= lanes;
        float* to = full ? out + j * kRank : part;
        for (int v = 0; v < kRank; ++v) {
          hn::StoreU(AffineLanesToFloat<kRank>(a + j * kRank + v * lanes, lane_terms[v]), d,
                     to + v * lanes);
        }
        if (!full) std::memcpy(out + j * kRank, part, sizeof(float) * kRank * (count - j));
      }
    }
  });
}

// Entry for one target.
bool AffineGridF32Run(const float* theta, int64_t n, int rank, const int64_t* spatial, bool align,
                      const Threads& threads, float* grid) {
  if (rank == 2) {
    AffineGridF32<2>(theta, n, spatial, align, threads, grid);
  } else {
    AffineGridF32<3>(theta, n, spatial, align, threads, grid);
  }
  return true;
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(AffineGridF32Run);

namespace {

// float64 theta and grid: the same separable evaluation in double, without rounding; plain
// scalar code (every value is two or three additions and a store).
template <int kRank>
void AffineGridF64(const double* theta, int64_t n_count, const int64_t* spatial, bool align,
                   const Threads& threads, double* grid) {
  const int64_t depth = kRank == 3 ? spatial[0] : 1;
  const int64_t h = spatial[kRank - 2], w = spatial[kRank - 1];
  const RowUnits units{(w + kAffineTile - 1) / kAffineTile, depth * h};
  const int64_t unit_cost = (w < kAffineTile ? w : kAffineTile) * kRank;  // values written
  ParallelUnits(threads, n_count * units.PerItem(), unit_cost, [&](int64_t begin, int64_t end) {
    double a[kRank][kAffineTile];
    int64_t item = -1, tile = -1, j0 = 0, count = 0;
    const double* th = theta;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t n = units.Item(u), t = units.Tile(u), zi = units.Row(u);
      if (n != item || t != tile) {
        item = n;
        tile = t;
        th = theta + n * kRank * (kRank + 1);
        j0 = t * kAffineTile;
        count = w - j0 < kAffineTile ? w - j0 : kAffineTile;
        for (int r = 0; r < kRank; ++r) {
          AffineColumnTerms(th[r * (kRank + 1)], j0, count, count, w, align, a[r]);
        }
      }
      const int64_t z = zi / h, i = zi % h;
      const double bz = kRank == 3 ? AffineBaseCoordinate(z, depth, align) : 0.0;
      const double by = AffineBaseCoordinate(i, h, align);
      double terms[kRank][kRank];
      AffineRowTerms<kRank>(th, by, bz, terms);
      double* out = grid + ((n * depth * h + zi) * w + j0) * kRank;
      for (int64_t j = 0; j < count; ++j) {
        for (int r = 0; r < kRank; ++r) {
          double v = a[r][j];
          for (int k = 0; k < kRank; ++k) v += terms[r][k];
          out[j * kRank + r] = v;
        }
      }
    }
  });
}

}  // namespace

bool TryAffineGrid(const AffineGridGeometry& geo, const TensorView& theta,
                   const MutableTensorView& grid, const AffineGridOptions& options) {
  if (theta.dtype != DType::kFloat32 && theta.dtype != DType::kFloat64) return false;
  if (geo.Empty()) return true;
  if (theta.dtype == DType::kFloat64) {
    const auto* t = static_cast<const double*>(theta.data);
    auto* g = static_cast<double*>(grid.data);
    if (geo.rank == 2) {
      AffineGridF64<2>(t, geo.n, geo.spatial, options.align_corners, options.threads, g);
    } else {
      AffineGridF64<3>(t, geo.n, geo.spatial, options.align_corners, options.threads, g);
    }
    return true;
  }
  return GRIDSAMPLE_DISPATCH(AffineGridF32Run)(static_cast<const float*>(theta.data), geo.n,
                                               geo.rank, geo.spatial, options.align_corners,
                                               options.threads, static_cast<float*>(grid.data));
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
