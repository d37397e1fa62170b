// WarpFlow's flow as a coordinate source for the NCHW driver: each pixel's position plus its
// displacement (sources/common-inl.h says what a source is; map_source.h's offsets are the
// scalar form).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_SOURCES_FLOW_SOURCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_SOURCES_FLOW_SOURCE_INL_H_
#undef GRIDSAMPLE_SOURCES_FLOW_SOURCE_INL_H_
#else
#define GRIDSAMPLE_SOURCES_FLOW_SOURCE_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"
#include "rules/pixel_rule.h"
#include "sources/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// WarpFlow's (N, 2, Ho, Wo) float32 flow, for one batch item of the NCHW driver: the pixels
// [p, p + Lanes) of the output at the pixel positions (j + dx, i + dy) (pixel_rule.h's
// FlowPosition per lane); when `valid` < Lanes only the first `valid` are read.
struct FlowSource {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  const float* dx;  // the item's flow planes
  const float* dy;
  int32_t width;  // output columns, below 2^24
  HWY_INLINE void Coords(int64_t p, int valid, VF* g) const {
    const DF d;
    const DI di;
    VF u, w;
    LoadPlanes(dx + p, dy + p, valid, &u, &w);
    // Column and row of each lane: the vector may wrap past row ends (several, for rows
    // shorter than a vector).
    const VI cols = hn::Set(di, width), last = hn::Set(di, width - 1);
    VI j = hn::Iota(di, static_cast<int32_t>(p % width));
    VI i = hn::Set(di, static_cast<int32_t>(p / width));
    for (auto wrap = hn::Gt(j, last); !hn::AllFalse(di, wrap); wrap = hn::Gt(j, last)) {
      j = hn::IfThenElse(wrap, hn::Sub(j, cols), j);
      i = hn::IfThenElse(wrap, hn::Add(i, hn::Set(di, 1)), i);
    }
    g[1] = hn::Add(hn::ConvertTo(d, j), u);
    g[0] = hn::Add(hn::ConvertTo(d, i), w);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_SOURCES_FLOW_SOURCE_INL_H_
