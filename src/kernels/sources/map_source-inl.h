// Remap's pixel maps and WarpFlowChannelsLast's flow as a coordinate source, row by row
// (sources/common-inl.h says what a source is).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_
#undef GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_
#else
#define GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_
#endif

#include <cstdint>

#include "drivers/fast.h"
#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"
#include "rules/pixel_rule.h"
#include "sources/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Remap's float32 pixel maps, row by row: map_x[p * stride] and map_y[p * stride] for output
// pixel p of the batch (stride 2: one interleaved map), pixel positions as they are; with
// `flow` (WarpFlowChannelsLast) they are offsets, added to the pixel's column and row first
// (pixel_rule.h's FlowPosition; sides below 2^24). The fixed-point blend reads the same
// positions.
class RemapRows {
 public:
  RemapRows(const ImageAxes& axes, const float* map_x, const float* map_y, int stride, bool flow)
      : axes_(axes), map_x_(map_x), map_y_(map_y), stride_(stride), flow_(flow) {}
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  static constexpr bool kPositionsFromCoords = false;
  static constexpr bool kKnowsInterior = false;

  HWY_INLINE void Item(int64_t n) { item_ = n * axes_.out_h * axes_.out_w; }
  HWY_INLINE void Columns(int64_t j0, int count) {
    j0_ = j0;
    count_ = count;
  }
  HWY_INLINE void Row(int64_t i) {
    i_ = i;
    row_ = item_ + i * axes_.out_w + j0_;
  }
  HWY_INLINE void Fill(int begin, int end, TileCoords<2>* coords) const {
    const DF d;
    const int lanes = static_cast<int>(hn::Lanes(d));
    const MapRow map = Positions(*coords);
    for (int v = begin; v < end; v += lanes) {
      VF u, w;
      map.Read(v, end - v < lanes ? end - v : lanes, &u, &w);
      hn::Store(u, d, coords->g[1] + v);
      hn::Store(w, d, coords->g[0] + v);
    }
  }

  // The row segment's positions as the maps hold them, a value the fixed-point loop keeps in
  // registers (see CoordPositions); lanes past the segment read as 0.
  struct MapRow {
    const float* x;
    const float* y;
    int stride, count;
    bool flow;
    int32_t j0, i;  // with flow: the segment's first column and its row
    HWY_INLINE void Read(int v, int valid, VF* u, VF* w) const {
      ReadMaps(v, valid, u, w);
      if (flow) {
        const DF d;
        *u = hn::Add(hn::ConvertTo(d, hn::Iota(DI(), j0 + v)), *u);
        *w = hn::Add(hn::Set(d, static_cast<float>(i)), *w);
      }
    }
    HWY_INLINE void ReadMaps(int v, int valid, VF* u, VF* w) const {
      if (stride == 2) {  // (x, y) pairs, read as a grid's
        VF g[2];
        GridSource<2>{x}.Coords(v, valid, g);
        *u = g[1];
        *w = g[0];
      } else {
        LoadPlanes(x + v, y + v, valid, u, w);
      }
    }
    HWY_INLINE void At(int v, VF* u, VF* w) const {
      const int lanes = static_cast<int>(hn::Lanes(DF()));
      Read(v, count - v < lanes ? count - v : lanes, u, w);
    }
  };
  HWY_INLINE MapRow Positions(const TileCoords<2>& /*coords*/) const {
    return MapRow{map_x_ + row_ * stride_,   map_y_ + row_ * stride_, stride_, count_, flow_,
                  static_cast<int32_t>(j0_), static_cast<int32_t>(i_)};
  }

 private:
  ImageAxes axes_;
  const float* map_x_;
  const float* map_y_;
  int stride_;
  bool flow_;
  int64_t item_ = 0, j0_ = 0, i_ = 0, row_ = 0;
  int count_ = 0;
};

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_
