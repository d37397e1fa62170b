// Remap's pixel maps and WarpFlowChannelsLast's flow as a coordinate source, row by row
// (sources/common-inl.h says what a source is): how the maps lay out their values (pairs or
// planes) and what the values are (positions or offsets) are types, chosen once per call
// (map_source.h is the scalar form).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_
#undef GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_
#else
#define GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "planner/image_axes.h"
#include "planner/tile_plan-inl.h"
#include "problem/problem.h"
#include "rules/pixel_rule.h"
#include "sources/common-inl.h"
#include "sources/grid_source-inl.h"
#include "sources/map_source.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The layouts: Read gives the values of pixels [p, p + Lanes) of the maps (x in u, y in w);
// when `valid` < Lanes only the first `valid` are read, the other lanes 0.
// The maps are described as their scalar form describes them (map_source.h's PixelMaps); the
// layout type says which of its pointers hold what.
// One (N, Ho, Wo, 2) map of (x, y) pairs from maps.x, read as a grid's.
struct PairedMaps {
  static HWY_INLINE void Read(const PixelMaps& maps, int64_t p, int valid, VF* u, VF* w) {
    if (valid == static_cast<int>(hn::Lanes(DF()))) {
      hn::LoadInterleaved2(DF(), maps.x + 2 * p, *u, *w);
      return;
    }
    VF g[2];
    GridSource<2>{maps.x}.Coords(p, valid, g);
    *u = g[1];
    *w = g[0];
  }
};
// Two (N, Ho, Wo) maps: x at maps.x, y at maps.y.
struct PlanarMaps {
  static HWY_INLINE void Read(const PixelMaps& maps, int64_t p, int valid, VF* u, VF* w) {
    LoadPlanes(maps.x + p, maps.y + p, valid, u, w);
  }
};

// The values: Position makes the pixel position of the pixels of row i from column j on.
// Remap: the maps hold pixel positions, taken as they are.
struct PositionValues {
  static HWY_INLINE void Position(int32_t /*j*/, int32_t /*i*/, VF* /*u*/, VF* /*w*/) {}
};
// WarpFlowChannelsLast: the maps hold offsets, added to the pixel's column and row
// (pixel_rule.h's FlowPosition; sides below 2^24, exact in int32 and float32 lanes).
struct OffsetValues {
  static HWY_INLINE void Position(int32_t j, int32_t i, VF* u, VF* w) {
    const DF d;
    *u = hn::Add(hn::ConvertTo(d, hn::Iota(DI(), j)), *u);
    *w = hn::Add(hn::Set(d, static_cast<float>(i)), *w);
  }
};

// Pixels [begin, end) of the row segment whose first pixel is pixel p of the maps, at column
// j0 of row i: the positions into coords [begin, end) (begin a multiple of Lanes).
template <class Layout, class Values>
HWY_NOINLINE void FillMapRow(const PixelMaps& maps, int64_t p, int32_t j0, int32_t i, int begin,
                             int end, TileCoords<2>* coords) {
  const DF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const PixelMaps local = maps;  // not reloaded after each store
  const auto one = [&](int v, int valid) {
    VF u, w;
    Layout::Read(local, p + v, valid, &u, &w);
    Values::Position(j0 + v, i, &u, &w);
    hn::Store(u, d, coords->g[1] + v);
    hn::Store(w, d, coords->g[0] + v);
  };
  int v = begin;
  for (; v + lanes <= end; v += lanes) one(v, lanes);  // whole vectors: no tail test
  if (v < end) one(v, end - v);
}

// The maps of one call, row by row. The fixed-point blend takes its positions from the filled
// coordinates, as it does a grid's.
class MapRows {
 public:
  template <class Layout, class Values>
  static MapRows Of(const ImageAxes& axes, const PixelMaps& maps) {
    return MapRows(axes, maps, &FillMapRow<Layout, Values>);
  }
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  static constexpr bool kPositionsFromCoords = true;
  static constexpr bool kKnowsInterior = false;
  static constexpr bool kFlatRows = false;

  HWY_INLINE void Item(int64_t n) { item_ = n * axes_.out_h * axes_.out_w; }
  HWY_INLINE void Columns(int64_t j0, int /*count*/) { j0_ = j0; }
  HWY_INLINE void Row(int64_t i) {
    i_ = i;
    row_ = item_ + i * axes_.out_w + j0_;
  }
  // One call per row segment, never per vector: the layout and values are chosen by type.
  HWY_INLINE void Fill(int begin, int end, TileCoords<2>* coords) const {
    fill_(maps_, row_, static_cast<int32_t>(j0_), static_cast<int32_t>(i_), begin, end, coords);
  }
  HWY_INLINE CoordPositions Positions(const TileCoords<2>& coords) const {
    return CoordPositions::Of(coords);
  }

 private:
  using FillRow = void (*)(const PixelMaps&, int64_t, int32_t, int32_t, int, int, TileCoords<2>*);
  MapRows(const ImageAxes& axes, const PixelMaps& maps, FillRow fill)
      : axes_(axes), maps_(maps), fill_(fill) {}

  ImageAxes axes_;
  PixelMaps maps_;
  FillRow fill_;
  int64_t item_ = 0, j0_ = 0, i_ = 0, row_ = 0;
};

// Remap's and WarpFlowChannelsLast's sources from their calls: float32 maps of the output's
// pixels, one of (x, y) pairs or two planes.
HWY_INLINE PixelMaps PairsOf(const ImageAxes& axes, const TensorView& map) {
  return PixelMaps::Pairs(static_cast<const float*>(map.data), axes.out_h * axes.out_w);
}
HWY_INLINE PixelMaps PlanesOf(const ImageAxes& axes, const TensorView& x, const TensorView& y) {
  return PixelMaps::Planes(static_cast<const float*>(x.data), static_cast<const float*>(y.data),
                           axes.out_h * axes.out_w);
}
HWY_INLINE MapRows RowsOf(const ImageAxes& axes, const MapPairsAt& s) {
  return MapRows::Of<PairedMaps, PositionValues>(axes, PairsOf(axes, s.map));
}
HWY_INLINE MapRows RowsOf(const ImageAxes& axes, const MapPlanesAt& s) {
  return MapRows::Of<PlanarMaps, PositionValues>(axes, PlanesOf(axes, s.map_x, s.map_y));
}
HWY_INLINE MapRows RowsOf(const ImageAxes& axes, const FlowPairsAt& s) {
  return MapRows::Of<PairedMaps, OffsetValues>(axes, PairsOf(axes, s.flow));
}
HWY_INLINE MapRows RowsOf(const ImageAxes& axes, const FlowPlanesAt& s) {
  return MapRows::Of<PlanarMaps, OffsetValues>(axes, PlanesOf(axes, s.flow_x, s.flow_y));
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_SOURCES_MAP_SOURCE_INL_H_
