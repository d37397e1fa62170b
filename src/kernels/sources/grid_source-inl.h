// The grid tensor as a coordinate source: GridSample's (N, O1..Or, r) grid for the NCHW driver,
// GridSampleChannelsLast's (N, Ho, Wo, 2) row by row (sources/common-inl.h says what a source is;
// grid_source.h is the scalar form).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_SOURCES_GRID_SOURCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_SOURCES_GRID_SOURCE_INL_H_
#undef GRIDSAMPLE_SOURCES_GRID_SOURCE_INL_H_
#else
#define GRIDSAMPLE_SOURCES_GRID_SOURCE_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "planner/image_axes.h"
#include "planner/tile_plan-inl.h"
#include "problem/problem.h"
#include "rules/pixel_rule.h"
#include "sources/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A float32 grid tensor: kRank coordinates per pixel, innermost axis first (x, y[, z]).
template <int kRank>
struct GridSource {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kNormalised;
  const float* grid;  // the first pixel's coordinates (of the batch item being sampled)

  // Pixels [p, p + Lanes) as g[a] per axis; when `valid` < Lanes only the first `valid` are
  // read (the other lanes plan from zeros and their results are dropped), so no read runs
  // past the grid.
  HWY_INLINE void Coords(int64_t p, int valid, VF* g) const {
    const DF d;
    const float* src = grid + p * kRank;
    HWY_ALIGN float tail[kMaxLanes * kRank];
    if (valid < static_cast<int>(hn::Lanes(d))) {
      std::memset(tail, 0, sizeof(tail));
      std::memcpy(tail, src, sizeof(float) * valid * kRank);
      src = tail;
    }
    if constexpr (kRank == 2) {
      hn::LoadInterleaved2(d, src, g[1], g[0]);
    } else {
      hn::LoadInterleaved3(d, src, g[2], g[1], g[0]);
    }
  }

  // The same for pixels p0 + [begin, end) into coords [begin, end) (begin a multiple of Lanes).
  HWY_INLINE void Fill(int64_t p0, int begin, int end, TileCoords<kRank>* coords) const {
    const DF d;
    const int lanes = static_cast<int>(hn::Lanes(d));
    for (int v = begin; v < end; v += lanes) {
      VF g[kRank];
      Coords(p0 + v, end - v, g);
      for (int a = 0; a < kRank; ++a) hn::Store(g[a], d, coords->g[a] + v);
    }
  }
};

// A row segment's grid coordinates as pixel positions for PlanTile, read and converted vector by
// vector: no tile of coordinates written and read back, and every vector blended, those whose
// taps all lie outside X too (as the NCHW driver plans and blends: with finite X they come to
// +0 all the same, and GridSample has no fill colour).
struct GridPositions {
  static constexpr bool kMarksEmpty = false;
  GridSource<2> grid;  // at the segment's first pixel

  template <Padding P>
  HWY_INLINE void At(const PlanAxes<2>& axes, int p, int end, VF* x) const {
    grid.Coords(p, end - p, x);
    for (int a = 0; a < 2; ++a) {
      x[a] = ToPixels<CoordinateSpace::kNormalised>(DF(), x[a], axes.size[a], axes.align, P);
    }
  }
};

// GridSampleChannelsLast's (N, Ho, Wo, 2) float32 grid, row by row.
class GridRows {
 public:
  GridRows(const ImageAxes& axes, const float* grid) : axes_(axes), grid_(grid) {}
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kNormalised;
  // The fixed-point blend's positions come from the filled coordinates; no pixels are known
  // to lie inside X in advance.
  static constexpr bool kPositionsFromCoords = true;
  static constexpr bool kKnowsInterior = false;
  static constexpr bool kFlatRows = true;

  HWY_INLINE void Item(int64_t n) { item_.grid = grid_ + n * axes_.out_h * axes_.out_w * 2; }
  HWY_INLINE void Columns(int64_t j0, int /*count*/) { j0_ = j0; }
  HWY_INLINE void Row(int64_t i) { row_ = i * axes_.out_w + j0_; }
  HWY_INLINE void Fill(int begin, int end, TileCoords<2>* coords) const {
    item_.Fill(row_, begin, end, coords);
  }
  HWY_INLINE CoordPositions Positions(const TileCoords<2>& coords) const {
    return CoordPositions::Of(coords);
  }
  // The segment's positions for the float planner, straight from the grid.
  HWY_INLINE GridPositions PlannerPositions() const {
    return GridPositions{GridSource<2>{item_.grid + row_ * 2}};
  }

 private:
  ImageAxes axes_;
  const float* grid_;
  GridSource<2> item_{nullptr};
  int64_t j0_ = 0, row_ = 0;
};

// GridSampleChannelsLast's source from its call (PixelsKernelTakes: a float32 grid).
HWY_INLINE GridRows RowsOf(const ImageAxes& axes, const GridAt& s) {
  return GridRows(axes, static_cast<const float*>(s.grid.data));
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_SOURCES_GRID_SOURCE_INL_H_
