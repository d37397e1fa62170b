// NCHW GridSample (2-D and 3-D) and WarpFlow on the fast path, every mode and padding: schedules
// tiles of output pixels (coordinates from the grid or flow source, plans from the planner,
// then every channel blended from them) and dispatches; other dtypes convert around the
// float32 kernels.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "drivers/export_template.h"
#include "drivers/fast.h"
#include "planner/limits.h"
#include "rules/dtype_traits.h"
#include "sources/grid_source.h"
#include "sources/map_source.h"
#include "threads/parallel.h"

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "drivers/planes_driver.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "blends/planar-inl.h"
#include "drivers/planes_sources-inl.h"
#include "planner/tile_plan-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether a source's coordinates are in its type's space (kSpace: GridSource, FlowSource), not
// one chosen per batch item (the scalar wasm's GridOrFlowSource, SpaceOf).
template <class Source, class = void>
struct HasTypeSpace : std::false_type {};
template <class Source>
struct HasTypeSpace<Source, std::void_t<decltype(Source::kSpace)>> : std::true_type {};

// A source's coordinates g on an axis as pixel positions (the planner's ToPixels).
template <class Source>
HWY_INLINE VF SourceToPixels(const Source& source, DF d, VF g, int32_t size, bool align,
                             Padding padding) {
  if constexpr (HasTypeSpace<Source>::value) {
    return ToPixels<Source::kSpace>(d, g, size, align, padding);
  } else if (SpaceOf(source) == CoordinateSpace::kPixels) {
    return ToPixels<CoordinateSpace::kPixels>(d, g, size, align, padding);
  } else {
    return ToPixels<CoordinateSpace::kNormalised>(d, g, size, align, padding);
  }
}

// Plans one tile of a batch item's output pixels, [p0, p0 + count), from its coordinate source
// (GridSource, FlowSource).
template <Mode M, Padding P, int kRank, class Source>
HWY_INLINE void PlanGridTile(const PlanAxes<kRank>& axes, const Source& source, int64_t p0,
                             int count, TilePlan<M, kRank>* HWY_RESTRICT plan) {
  const DF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  for (int p = 0; p < count; p += lanes) {
    VF g[kRank];
    source.Coords(p0 + p, count - p, g);
    for (int a = 0; a < kRank; ++a) {
      g[a] = SourceToPixels(source, d, g[a], axes.size[a], axes.align, P);
    }
    PlanVector<M, P, kRank>(axes, g, p, plan);
  }
}

// Every channel of one tile, [p0, p0 + count) of planes that start at x and y, blended from the
// tile's plans two channels at a time (see BlendTile); restrict tells the compiler that the
// stores leave the plans unchanged.
template <Mode M, int kRank>
HWY_INLINE void BlendChannels(const TilePlan<M, kRank>* HWY_RESTRICT plan, int count,
                              const PlanAxes<kRank>& axes, const float* x, int64_t in_spatial,
                              float* HWY_RESTRICT y, int64_t out_spatial, int64_t channels) {
  int32_t tap_offset[TilePlan<M, kRank>::kWeights];
  TapOffsets<M, kRank>(axes.stride, tap_offset);
  constexpr int kPair = kChannelsPerPass<M>;
  int64_t c = 0;
  for (; c + kPair <= channels; c += kPair) {
    const float* xs[kPair];
    float* outs[kPair];
    for (int k = 0; k < kPair; ++k) {
      xs[k] = x + (c + k) * in_spatial;
      outs[k] = y + (c + k) * out_spatial;
    }
    BlendTile<M, kRank, kPair>(*plan, count, tap_offset, xs, outs);
  }
  if (c < channels) {  // a last odd channel
    const float* xs[1] = {x + c * in_spatial};
    float* outs[1] = {y + c * out_spatial};
    BlendTile<M, kRank, 1>(*plan, count, tap_offset, xs, outs);
  }
}

// How Run plans a tile for the padding: as a template argument (one loop per mode, padding and
// rank), or chosen per tile among three planners (one loop per mode and rank).
template <Padding P>
struct PaddingFixed {
  template <Mode M, int kRank, class Source>
  static HWY_INLINE void Plan(Padding /*padding: P*/, const PlanAxes<kRank>& axes,
                              const Source& source, int64_t p0, int count,
                              TilePlan<M, kRank>* plan) {
    PlanGridTile<M, P, kRank>(axes, source, p0, count, plan);
  }
};
struct PaddingPerTile {
  template <Mode M, int kRank, class Source>
  static HWY_INLINE void Plan(Padding padding, const PlanAxes<kRank>& axes, const Source& source,
                              int64_t p0, int count, TilePlan<M, kRank>* plan) {
    switch (padding) {
      case Padding::kZeros:
        return PlanGridTile<M, Padding::kZeros, kRank>(axes, source, p0, count, plan);
      case Padding::kBorder:
        return PlanGridTile<M, Padding::kBorder, kRank>(axes, source, p0, count, plan);
      case Padding::kReflection:
        return PlanGridTile<M, Padding::kReflection, kRank>(axes, source, p0, count, plan);
    }
  }
};

// Every batch item of the call (`geo` with o's options; Covers has checked that X's sides fit
// int32 offsets), tile by tile: plan the tile's pixels (as Paddings says), then blend every
// channel from the plans.
template <Mode M, int kRank, class Paddings, class Sources>
void Run(const GridSampleGeometry& geo, const GridSampleOptions& o, const float* x,
         const Sources& sources, float* y) {
  PlanAxes<kRank> axes;  // sizes, and element strides of X's spatial axes
  axes.align = o.align_corners;
  axes.stride[kRank - 1] = 1;
  for (int a = kRank - 1; a >= 0; --a) {
    axes.size[a] = static_cast<int32_t>(geo.in[a]);
    if (a < kRank - 1) axes.stride[a] = axes.stride[a + 1] * axes.size[a + 1];
  }
  const int64_t in_spatial = geo.in_spatial;
  const int64_t out_spatial = geo.out_spatial;
  constexpr int kTile = TilePlan<M, kRank>::kPixels;
  // Work units: tiles of one batch item's pixels, each planned and blended on its own.
  const int64_t tiles = (out_spatial + kTile - 1) / kTile;
  const int64_t tile_cost = kTile * PixelCost(geo.c, TilePlan<M, kRank>::kWeights);
  ParallelUnits(o.threads, geo.n * tiles, tile_cost, [&](int64_t begin, int64_t end) {
    TilePlan<M, kRank> plan;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t n = u / tiles, p0 = u % tiles * kTile;
      const float* x_n = x + n * geo.c * in_spatial;
      float* y_n = y + n * geo.c * out_spatial;
      const auto source = sources.Item(n);
      const int count = static_cast<int>(out_spatial - p0 < kTile ? out_spatial - p0 : kTile);
      Paddings::template Plan<M, kRank>(o.padding, axes, source, p0, count, &plan);
      BlendChannels<M, kRank>(&plan, count, axes, x_n, in_spatial, y_n + p0, out_spatial, geo.c);
    }
  });
}

// Run for mode M with the padding as a template argument natively, and per tile in wasm:
// natively the per-tile choice made the blend-bound workloads slower, in wasm it made the
// module smaller (bench/README.md).
template <Mode M, int kRank, class Sources>
void RunPadding(const GridSampleGeometry& geo, const GridSampleOptions& o, const float* x,
                const Sources& s, float* y) {
#if HWY_TARGET == HWY_WASM || HWY_TARGET == HWY_EMU128
  Run<M, kRank, PaddingPerTile>(geo, o, x, s, y);
#else
  switch (o.padding) {
    case Padding::kZeros: return Run<M, kRank, PaddingFixed<Padding::kZeros>>(geo, o, x, s, y);
    case Padding::kBorder: return Run<M, kRank, PaddingFixed<Padding::kBorder>>(geo, o, x, s, y);
    case Padding::kReflection:
      return Run<M, kRank, PaddingFixed<Padding::kReflection>>(geo, o, x, s, y);
  }
#endif
}

template <int kRank, class Sources>
void RunMode(const GridSampleGeometry& geo, const GridSampleOptions& o, const float* x,
             const Sources& s, float* y) {
  switch (o.mode) {
    case Mode::kLinear: return RunPadding<Mode::kLinear, kRank>(geo, o, x, s, y);
    case Mode::kNearest: return RunPadding<Mode::kNearest, kRank>(geo, o, x, s, y);
    case Mode::kCubic: return RunPadding<Mode::kCubic, kRank>(geo, o, x, s, y);
  }
}

// The entry of coordinate source At (GridAt, FlowAt) on this target: its batch items' sources
// (planes_sources-inl.h's WithSources, found by the type) in the call's mode and padding, the
// runtime options resolved into template parameters once.
template <class At>
void Planar(const GridSampleGeometry& geo, const GridSampleOptions& o, const float* x,
            const float* coords, float* y) {
  WithSources(geo, static_cast<const At*>(nullptr), coords, [&](auto rank, const auto& sources) {
    RunMode<decltype(rank)::value>(geo, o, x, sources, y);
  });
}

int64_t TargetBits() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

GRIDSAMPLE_EXPORT_TEMPLATE(Planar);
HWY_EXPORT(TargetBits);

namespace {

// The float32 kernel of source At, and the coordinates it reads per batch item (`per_point`
// values per output point: sources/*.h's CoordinatesPerPoint).
template <class At>
struct PlanarKernel {
  int64_t per_point;
  int64_t PerItem(const GridSampleGeometry& geo) const { return geo.out_spatial * per_point; }
  void operator()(const GridSampleGeometry& geo, const GridSampleOptions& o, const float* x,
                  const float* coords, float* y) const {
    GRIDSAMPLE_DISPATCH_TEMPLATE(Planar, At)(geo, o, x, coords, y);
  }
};

// A float scratch buffer, or null when memory is short (the caller falls back).
std::unique_ptr<float[]> Scratch(int64_t count) {
  return std::unique_ptr<float[]>(new (std::nothrow) float[static_cast<size_t>(count)]);
}

// Types whose values the reference computes in float (DTypeTraits::Compute): float16,
// bfloat16 and the 8/16-bit integers run the float32 kernels on X converted to float32 one
// batch item at a time, and store the float results as the reference does; a float64,
// float16 or bfloat16 grid is converted to the float coordinates the reference takes from it.
// Same plans, same arithmetic, so the same results as the float32 path.
template <class Kernel>
bool RunConverted(const Kernel& run, const PlanesProblem& p, const TensorView& grid) {
  const GridSampleGeometry& geo = p.geometry;
  const TensorView& x = p.x;
  const MutableTensorView& y = p.y;
  const GridSampleOptions& o = p.options;
  const int64_t per_item = run.PerItem(geo);
  const int64_t grid_count = geo.n * per_item;
  std::unique_ptr<float[]> grid_f32;
  const float* g = static_cast<const float*>(grid.data);
  if (grid.dtype != DType::kFloat32) {
    grid_f32 = Scratch(grid_count);
    if (!grid_f32) return false;
    LoadCoordinates(grid.dtype, grid.data, grid_count, o.padding, grid_f32.get());
    g = grid_f32.get();
  }
  if (x.dtype == DType::kFloat32) {
    run(geo, o, static_cast<const float*>(x.data), g, static_cast<float*>(y.data));
    return true;
  }
  const int64_t x_count = geo.c * geo.in_spatial, y_count = geo.c * geo.out_spatial;
  std::unique_ptr<float[]> x_f32 = Scratch(x_count), y_f32 = Scratch(y_count);
  if (!x_f32 || !y_f32) return false;
  GridSampleGeometry one = geo;
  one.n = 1;
  const size_t elem = DTypeSize(x.dtype);
  for (int64_t n = 0; n < geo.n; ++n) {
    LoadFloats(x.dtype, static_cast<const uint8_t*>(x.data) + n * x_count * elem, x_count,
               x_f32.get());
    run(one, o, x_f32.get(), g + n * per_item, y_f32.get());
    StoreFloats(x.dtype, y_f32.get(), y_count, static_cast<uint8_t*>(y.data) + n * y_count * elem);
  }
  return true;
}

}  // namespace

// Whether a kernel covers the problem: X of a type the reference computes in float (float64,
// int32 and uint32 are computed in double), 2-D or 3-D; offsets fit int32 and reflection works
// on exact float integers; the planner's windows need kT pixels along each axis; the source's
// kernel takes the call (sources/*.h's PlanesKernelTakes).
bool Covers(const PlanesProblem& p) {
  const GridSampleGeometry& geo = p.geometry;
  if (ComputesInDouble(p.x.dtype)) return false;
  if (geo.rank != 2 && geo.rank != 3) return false;
  if (geo.in_spatial >= kMaxElements) return false;
  for (int a = 0; a < geo.rank; ++a) {
    if (geo.in[a] < TapsPerAxis(p.options.mode) || geo.in[a] >= kMaxAxis) return false;
  }
  return Visit(p.source, [&](const auto& s) { return PlanesKernelTakes(geo, s); });
}

template <class At>
bool Try(const PlanesProblem& p, const At& source) {
  if (!Covers(p)) return false;
  const PlanarKernel<At> kernel{CoordinatesPerPoint(p.geometry, source)};
  return p.geometry.Empty() || RunConverted(kernel, p, CoordinatesOf(source));
}

bool Try(const PlanesProblem& p) {
  return Visit(p.source, [&](const auto& s) { return Try(p, s); });
}

// Each source's entry for the callers that name its type (fast.h): a new source is one line here
// (its kernel's parts are found by the type: sources/*.h, planes_sources-inl.h).
template bool Try(const PlanesProblem&, const GridAt&);
template bool Try(const PlanesProblem&, const FlowAt&);

const char* TargetName() { return hwy::TargetName(GRIDSAMPLE_DISPATCH(TargetBits)()); }

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
