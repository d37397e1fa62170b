// What the coordinate sources share. A source says where the sampling coordinates of a vector of
// output pixels come from (a grid tensor; an affine or perspective map, pixel maps or a flow,
// whose grid is never materialised) and the space of its values (kSpace: normalised, or pixel
// positions, pixel_rule.h); the planner (planner/tile_plan-inl.h) takes them from there. Each
// source's scalar form, which the references read (reference/points.h), is the .h of the same
// name. A new warp is a new source in this folder: a channels-last one is made from its call by
// RowsOf(axes, its At: its type in problem/problem.h's PixelsProblem::Source), and its .h says
// which calls the kernels take (PixelsKernelTakes); the drivers find both by the type, and
// pixels_driver.cc's one line per source instantiates its entry.
//
// Every source fills TileCoords: per axis a (outermost first) an array of the tile's
// coordinates. The channels-last sources walk an image's rows: Item(n), Columns(j0, count) per
// tile of columns, Row(i), then Fill(begin, end, coords) for pixels of the row segment, and
// Positions(coords), the row's pixel coordinates that the uint8 fixed-point blend takes
// (kPositionsFromCoords: from the filled coordinates). A source whose coordinates depend on a
// pixel's index in the batch item alone (kFlatRows: a grid tensor) may be walked as one row of
// all the item's pixels (Columns over the whole of it, Row(row0) once). A source may instead
// give the float planner its segment's positions itself (PlannerPositions(): GridRows), read and
// converted vector by vector with no tile of coordinates in between.
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_SOURCES_COMMON_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_SOURCES_COMMON_INL_H_
#undef GRIDSAMPLE_SOURCES_COMMON_INL_H_
#else
#define GRIDSAMPLE_SOURCES_COMMON_INL_H_
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A row's pixel positions from its filled coordinates once they are pixel positions (sources
// with kPositionsFromCoords; TileToPixels), as a value the fixed-point loop keeps in registers
// (the bytes it stores could alias a source's members, which the compiler would then reload).
struct CoordPositions {
  const float* x;
  const float* y;
  static HWY_INLINE CoordPositions Of(const TileCoords<2>& coords) {
    return CoordPositions{coords.g[1], coords.g[0]};
  }
  HWY_INLINE void At(int v, VF* px, VF* py) const {
    const DF d;
    *px = hn::Load(d, x + v);
    *py = hn::Load(d, y + v);
  }
};

// Whether a source gives the float planner its positions itself (PlannerPositions()).
template <class Source, class = void>
struct HasPlannerPositions : std::false_type {};
template <class Source>
struct HasPlannerPositions<Source, std::void_t<decltype(&Source::PlannerPositions)>>
    : std::true_type {};

// A vector from each of two float planes at x and y; when `valid` < Lanes only the first
// `valid` values are read, the other lanes 0.
HWY_INLINE void LoadPlanes(const float* x, const float* y, int valid, VF* u, VF* w) {
  const DF d;
  if (valid < static_cast<int>(hn::Lanes(d))) {
    HWY_ALIGN float tx[kMaxLanes] = {}, ty[kMaxLanes] = {};
    std::memcpy(tx, x, sizeof(float) * valid);
    std::memcpy(ty, y, sizeof(float) * valid);
    *u = hn::Load(d, tx);
    *w = hn::Load(d, ty);
  } else {
    *u = hn::LoadU(d, x);
    *w = hn::LoadU(d, y);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_SOURCES_COMMON_INL_H_
