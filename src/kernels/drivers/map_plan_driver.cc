// Fixed coordinates (pixel maps, a grid) planned once and replayed (drivers/map_plan.h): at
// preparation their positions go through the same planner and fixed-point plan as the pixels
// driver's row segments (pixels_driver.cc), and the plans are kept; each run then blends them on
// new images.
// A vector's choice (fixed point, planned, outside) is the pixels driver's: made per vector of
// Lanes pixels from a row's start, so its bytes are the unprepared call's on the same target.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include "drivers/map_plan.h"
#include "planner/limits.h"
#include "threads/parallel.h"

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "drivers/map_plan_driver.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "blends/interleaved-inl.h"
#include "sources/grid_source-inl.h"
#include "sources/map_source-inl.h"
#include "drivers/pixel_rows-inl.h"
#include "drivers/map_replay-inl.h"
#include "planner/tile_plan-inl.h"
// clang-format on
#include "drivers/export_template.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// The fixed-point plan of a vector, for X of c channels (FixedPlanVector checks C = 3 apart).
HWY_INLINE bool FixedPlanOf(int c, const FixedConsts& k, VF px, VF py, FixedPlan* out) {
  switch (c) {
    case 1: return FixedPlanVector<1>(k, px, py, out);
    case 2: return FixedPlanVector<2>(k, px, py, out);
    case 3: return FixedPlanVector<3>(k, px, py, out);
    default: return FixedPlanVector<4>(k, px, py, out);
  }
}

// Plans every segment of the source's coordinates into *plan (its sizes set): false when memory
// runs out. The positions as the pixels driver takes them: pixel maps' as filled for the
// fixed-point plan (converted where a vector falls back), a grid's once converted.
template <Mode M, class Source>
HWY_NOINLINE bool PlanSegments(const Source& source, MapPlan* plan) {
  constexpr bool kConvertLater = Source::kSpace == CoordinateSpace::kPixels;
  const InterleavedProblem& pb = plan->problem;
  const int lanes = plan->lanes;
  const int32_t row = pb.axes.in_w * pb.c;
  const PlanAxes<2> axes{{pb.axes.in_h, pb.axes.in_w}, {row, pb.c}, pb.axes.align};
  const Padding padding = pb.axes.padding;
  const FixedConsts k = MakeFixedConsts(pb.axes.in_w, pb.axes.in_h, row, pb.c, hn::Zero(DI()));
  auto* kinds = static_cast<VectorKind*>(plan->kinds.data);
  auto* fixed = static_cast<int32_t*>(plan->fixed_plans.data);
  const Segments seg{*plan};
  TileCoords<2> coords_store;
  TilePlan<M, 2> tile_store;
  TileCoords<2>* const coords = &coords_store;
  TilePlan<M, 2>* const tile = &tile_store;
  bool nonempty[kMaxTilePixels];
  const bool convert_later = plan->fixed && kConvertLater;
  Source src = source;
  for (int64_t n = 0; n < pb.n; ++n) {
    src.Item(n);
    for (int64_t t = 0; t < plan->tiles; ++t) {
      const int count = seg.Count(t);
      src.Columns(t * plan->tile, count);
      for (int64_t i = 0; i < plan->lines; ++i) {
        const int64_t r = n * plan->lines + i;
        const int64_t slot = seg.Slot(r, t);
        src.Row(i);
        src.Fill(0, count, coords);
        if (!convert_later) TileToPixels<Source::kSpace>(axes, padding, 0, count, coords);
        int first = count, last = 0;  // the slots of the vectors planned
        const auto plan_vectors = [&](int a, int b) {
          if (convert_later) TileToPixels<Source::kSpace>(axes, padding, a, b, coords);
          PlanTileFor<M, 2>(padding, axes, StoredPositions<2>{coords}, a, b, tile, nonempty);
          for (int v = a; v < b; v += lanes) {
            const bool some = nonempty[v / lanes];
            kinds[(slot + v) / lanes] = some ? VectorKind::kPlanned : VectorKind::kOutside;
            if (some) {
              first = std::min(first, v);
              last = v + lanes;
            }
          }
        };
        if (plan->fixed) {
          const CoordPositions positions = src.Positions(*coords);
          for (int v = 0; v < count; v += lanes) {
            VF px, py;
            positions.At(v, &px, &py);
            FixedPlan fp;
            if (!FixedPlanOf(pb.c, k, px, py, &fp)) {
              plan_vectors(v, std::min(v + lanes, count));
              continue;
            }
            int32_t* block = fixed + 3 * (slot + v);
            std::memcpy(block, fp.base, sizeof(int32_t) * lanes);
            std::memcpy(block + lanes, fp.left, sizeof(int32_t) * lanes);
            std::memcpy(block + 2 * lanes, fp.right, sizeof(int32_t) * lanes);
            kinds[(slot + v) / lanes] = VectorKind::kFixed;
          }
        } else {
          plan_vectors(0, count);
        }
        if (first >= last) continue;
        // The segment's float plans: its planned slots' offsets, then each tap's weights.
        const int slots = last - first;
        PlanBlock& block = plan->segment_plans[r * plan->tiles + t];
        const size_t bytes = sizeof(int32_t) * slots * (1 + plan->weights);
        if (!block.Allocate(bytes)) return false;
        plan->bytes += bytes;
        block.begin = first;
        block.slots = slots;
        auto* out = static_cast<int32_t*>(block.data);
        std::memcpy(out, tile->offset + first, sizeof(int32_t) * slots);
        for (int w = 0; w < plan->weights; ++w) {
          std::memcpy(out + (1 + w) * slots, tile->weight[w] + first, sizeof(float) * slots);
        }
      }
    }
  }
  return true;
}

template <Mode M>
bool ReplayMode(const MapPlan& plan, const void* x, void* y, const Threads& threads) {
  const InterleavedProblem& pb = plan.problem;
  const RowUnits units{plan.tiles, plan.lines};
  const int64_t unit_cost =
      std::min<int64_t>(plan.tile, plan.width) * PixelCost(pb.c, kTaps<M> * kTaps<M>);
  ParallelUnits(threads, pb.n * units.PerItem(), unit_cost, [&](int64_t begin, int64_t end) {
    Replayer<M> replayer(plan, x, y);
    for (int64_t u = begin; u < end; ++u) replayer.Run(units, u);
  });
  return true;
}

// The replay of this target, pinned into the plans it made.
bool ReplayMapPlan(const MapPlan& plan, const void* x, void* y, const Threads& threads) {
  switch (plan.problem.mode) {
    case Mode::kLinear: return ReplayMode<Mode::kLinear>(plan, x, y, threads);
    case Mode::kNearest: return ReplayMode<Mode::kNearest>(plan, x, y, threads);
    case Mode::kCubic: return ReplayMode<Mode::kCubic>(plan, x, y, threads);
  }
  return false;
}

template <Mode M, class Source>
bool PlanWith(const Source& source, MapPlan* plan) {
  const InterleavedProblem& pb = plan->problem;
  plan->lanes = LanesNow();
  plan->tile = TilePlan<M, 2>::kPixels;  // any whole number of vectors gives the same bytes
  plan->weights = TilePlan<M, 2>::kWeights;
  // The driver's lines (CallRows): a flat source's item is one line.
  plan->width = Source::kFlatRows ? pb.axes.out_h * pb.axes.out_w : pb.axes.out_w;
  plan->lines = Source::kFlatRows ? 1 : pb.axes.out_h;
  plan->tiles = (plan->width + plan->tile - 1) / plan->tile;
  plan->padded_w = (plan->width + plan->lanes - 1) / plan->lanes * plan->lanes;
  plan->fixed = M == Mode::kLinear && pb.dtype == DType::kUint8 && pb.c <= 4;
  plan->replay = &ReplayMapPlan;
  const int64_t rows = pb.n * plan->lines;
  const int64_t slots = rows * plan->padded_w;
  const int64_t segments = rows * plan->tiles;
  // Byte counts a size_t holds (32 bits in wasm), else no memory: at most 13 bytes a slot (fixed
  // plans and kinds) and a PlanBlock a segment before the float plans, which come a segment at a
  // time.
  const double fixed_part = 16.0 * static_cast<double>(slots);
  const double blocks = static_cast<double>(sizeof(PlanBlock)) * static_cast<double>(segments);
  if (fixed_part + blocks > static_cast<double>(std::numeric_limits<size_t>::max() / 2)) {
    return false;
  }
  plan->segment_plans.reset(new (std::nothrow) PlanBlock[static_cast<size_t>(segments)]);
  if (plan->segment_plans == nullptr) return false;
  plan->bytes += sizeof(PlanBlock) * segments;
  if (!plan->kinds.Allocate(static_cast<size_t>(slots / plan->lanes))) return false;
  plan->bytes += slots / plan->lanes;
  if (plan->fixed) {
    if (!plan->fixed_plans.Allocate(sizeof(int32_t) * 3 * slots)) return false;
    plan->bytes += sizeof(int32_t) * 3 * slots;
  }
  if (pb.fill != nullptr) {
    const size_t bytes = sizeof(float) * FillFloats(pb.c);
    if (!plan->fill.Allocate(bytes)) return false;
    plan->bytes += bytes;
    plan->fill_floats = static_cast<float*>(plan->fill.data);
    plan->fill_pixel = MakeFill(pb, static_cast<float*>(plan->fill.data));
  }
  return PlanSegments<M>(source, plan);
}

template <class Source>
bool PlanModeOf(const Source& source, MapPlan* plan) {
  switch (plan->problem.mode) {
    case Mode::kLinear: return PlanWith<Mode::kLinear>(source, plan);
    case Mode::kNearest: return PlanWith<Mode::kNearest>(source, plan);
    case Mode::kCubic: return PlanWith<Mode::kCubic>(source, plan);
  }
  return false;
}

// This target's planning of the source's coordinates (the pixels driver's source from the call:
// sources/*-inl.h's RowsOf): false when memory runs out.
template <class At>
bool PlanMaps(const At& at, MapPlan* plan) {
  return PlanModeOf(RowsOf(plan->problem.axes, at), plan);
}

#else  // HWY_TARGET == HWY_SCALAR: Covers refuses, the caller keeps the maps

template <class At>
bool PlanMaps(const At&, MapPlan*) {
  return false;
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

GRIDSAMPLE_EXPORT_TEMPLATE(PlanMaps);

bool PlanBlock::Allocate(size_t bytes) {
  constexpr size_t kAlign = 64;  // at least HWY_ALIGN on every target
  raw.reset(new (std::nothrow) uint8_t[bytes + kAlign]);
  if (raw == nullptr) return false;
  const uintptr_t at = reinterpret_cast<uintptr_t>(raw.get());
  data = raw.get() + (kAlign - at % kAlign) % kAlign;
  std::memset(data, 0, bytes);
  return true;
}

namespace {

// The sources a plan is made of: coordinates given as tensors, a grid or pixel maps
// (api/fixed_maps.cc), whose plans are the same for every image.
template <class At>
constexpr bool kFixedCoordinates =
    std::is_same_v<At, GridAt> || std::is_same_v<At, MapPairsAt> ||
    std::is_same_v<At, MapPlanesAt> || std::is_same_v<At, FlowPairsAt> ||
    std::is_same_v<At, FlowPlanesAt>;

}  // namespace

bool PrepareMapPlan(const PixelsProblem& p, std::unique_ptr<MapPlan>* out, Status* status) {
  *status = Status::Ok();
  const bool fixed =
      Visit(p.source, [](const auto& s) { return kFixedCoordinates<std::decay_t<decltype(s)>>; });
  InterleavedProblem pb;
  if (!fixed || !InterleavedOf(p, &pb) || p.geometry.rows != p.geometry.out_h ||
      p.geometry.row0 != 0) {
    return false;
  }
  std::unique_ptr<MapPlan> plan(new (std::nothrow) MapPlan());
  if (plan != nullptr) {
    plan->problem = pb;  // x, y and threads: a run's
    plan->problem.x = nullptr;
    plan->problem.y = nullptr;
    plan->problem.threads = Threads();
    plan->bytes = sizeof(MapPlan);
    // The source's own planning (one call through the dispatch, the rest shared).
    const bool planned = Visit(p.source, [&](const auto& source) {
      using At = std::decay_t<decltype(source)>;
      if constexpr (kFixedCoordinates<At>) {
        return GRIDSAMPLE_DISPATCH_TEMPLATE(PlanMaps, At)(source, plan.get());
      } else {
        return false;  // (refused above)
      }
    });
    if (planned) {
      plan->problem.fill = nullptr;  // the caller's colour: kept as plan->fill
      *out = std::move(plan);
      return true;
    }
  }
  *status =
      Status::OutOfRange("could not allocate the plan of the maps (" +
                         std::to_string(plan ? plan->bytes : sizeof(MapPlan)) + " bytes so far)");
  return true;
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
