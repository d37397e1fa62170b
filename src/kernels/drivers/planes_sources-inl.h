// The planes driver's (planes_driver.cc) coordinate sources per batch item, GridSample's grid or
// WarpFlow's flow, and how each target loops over them: a loop per source natively and in the
// SIMD wasm, one loop for both in the scalar wasm (measured trade-offs, said where they are made).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_DRIVERS_PLANES_SOURCES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_DRIVERS_PLANES_SOURCES_INL_H_
#undef GRIDSAMPLE_DRIVERS_PLANES_SOURCES_INL_H_
#else
#define GRIDSAMPLE_DRIVERS_PLANES_SOURCES_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"
#include "rules/pixel_rule.h"
#include "sources/flow_source-inl.h"
#include "sources/grid_source-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Each batch item's coordinate source: GridSample's grid, or WarpFlow's flow planes.
template <int kRank>
struct GridSources {
  const float* grid;
  int64_t out_spatial;
  HWY_INLINE GridSource<kRank> Item(int64_t n) const {
    return GridSource<kRank>{grid + n * out_spatial * kRank};
  }
};
struct FlowSources {
  const float* flow;
  int64_t out_spatial;
  int32_t width;
  HWY_INLINE FlowSource Item(int64_t n) const {
    const float* dx = flow + n * 2 * out_spatial;
    return FlowSource{dx, dx + out_spatial, width};
  }
};

#if HWY_TARGET == HWY_EMU128
// In the scalar .wasm one 2-D loop per mode serves both sources, chosen per vector: loops of
// its own for the flow would add 63 KB there.
struct GridOrFlowSource {
  GridSource<2> grid;
  FlowSource flow;
  bool is_flow;
  HWY_INLINE void Coords(int64_t p, int valid, VF* g) const {
    if (is_flow) {
      flow.Coords(p, valid, g);
    } else {
      grid.Coords(p, valid, g);
    }
  }
};
constexpr CoordinateSpace SpaceOf(const GridOrFlowSource& s) {
  return s.is_flow ? FlowSource::kSpace : GridSource<2>::kSpace;
}
struct GridOrFlowSources {
  GridSources<2> grid;
  FlowSources flow;
  bool is_flow;
  HWY_INLINE GridOrFlowSource Item(int64_t n) const {
    return is_flow ? GridOrFlowSource{GridSource<2>{nullptr}, flow.Item(n), true}
                   : GridOrFlowSource{grid.Item(n), FlowSource{}, false};
  }
};
HWY_INLINE GridOrFlowSources Sources2(const GridSources<2>& g) { return {g, FlowSources{}, false}; }
HWY_INLINE GridOrFlowSources Sources2(const FlowSources& f) {
  return {GridSources<2>{nullptr, 0}, f, true};
}
#else
// Elsewhere each source has loops of its own: one loop per mode serving both cost GridSample
// 5-10% more instructions per element in V8 (img2d 22.0 -> 23.6-24.6, nearest2d 14.2 -> 15.2,
// valgrind), which the 23 KB it saved in the SIMD .wasm did not buy.
template <class Sources>
HWY_INLINE const Sources& Sources2(const Sources& s) {
  return s;
}
#endif

// Each source's batch items for the planes driver, found by its type (a null pointer of GridAt or
// FlowAt): run(rank, sources) with GridSample's grid of the call's rank, or WarpFlow's flow planes
// of the output's width.
template <class Run>
HWY_INLINE void WithSources(const GridSampleGeometry& geo, const GridAt*, const float* grid,
                            const Run& run) {
  if (geo.rank == 2) {
    run(std::integral_constant<int, 2>(), Sources2(GridSources<2>{grid, geo.out_spatial}));
  } else {
    run(std::integral_constant<int, 3>(), GridSources<3>{grid, geo.out_spatial});
  }
}
template <class Run>  // (the flow's sides are below kMaxFlowSide: its PlanesKernelTakes)
HWY_INLINE void WithSources(const GridSampleGeometry& geo, const FlowAt*, const float* flow,
                            const Run& run) {
  run(std::integral_constant<int, 2>(),
      Sources2(FlowSources{flow, geo.out_spatial, static_cast<int32_t>(geo.out[1])}));
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_DRIVERS_PLANES_SOURCES_INL_H_
