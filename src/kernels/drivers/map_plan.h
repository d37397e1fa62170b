// Fixed coordinates planned once (Sampler::RemapFixed, GridSampleChannelsLastFixed): every row
// segment's tap offsets and weights, or uint8 bilinear's fixed-point plans, as the pixels driver
// makes them per call, kept so that each run only blends. Internal interface of
// drivers/map_plan_driver.cc.
#ifndef GRIDSAMPLE_DRIVERS_MAP_PLAN_H_
#define GRIDSAMPLE_DRIVERS_MAP_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "drivers/fast.h"
#include "problem/problem.h"

namespace gridsample {
namespace fast {

// What one vector of output pixels does at a run.
enum class VectorKind : uint8_t {
  kOutside = 0,  // no tap inside X (zeros padding): 0 or the fill colour
  kPlanned,      // the float blend from the kept tile plan
  kFixed,        // uint8 bilinear: the fixed-point blend from the kept fixed plan
};

// Memory of its own, aligned for any vector (HWY_ALIGN), or empty; a segment's float plans say
// which of its slots they hold: [begin, begin + slots).
struct PlanBlock {
  std::unique_ptr<uint8_t[]> raw;
  void* data = nullptr;
  int32_t begin = 0, slots = 0;
  // `bytes` zeroed bytes; false when they cannot be allocated.
  bool Allocate(size_t bytes);
};

// The plans of one call's maps for one Highway target (the one that made them runs them,
// whatever the dispatch picks later: the results are that target's unprepared call's).
// Row segments are the driver's: per batch item, line and column tile of `tile` pixels (a line:
// a row of the output, or for a grid, whose coordinates follow the pixels' order alone, a batch
// item's whole output, as the pixels driver walks it). Pixel slots: line r = n * lines + i holds
// `padded_w` (`width` rounded up to whole vectors) slots; segment (r, t) those from
// r * padded_w + t * tile.
struct MapPlan {
  using Replay = bool (*)(const MapPlan& plan, const void* x, void* y, const Threads& threads);

  InterleavedProblem problem;    // x and y null: a run's
  Replay replay = nullptr;       // the making target's replay
  int lanes = 0;                 // pixels per vector
  int tile = 0;                  // pixels per row segment (the last of a row may hold fewer)
  int64_t width = 0, lines = 0;  // pixels per line, lines per batch item
  int64_t tiles = 0;             // column tiles per line
  int64_t padded_w = 0;
  bool fixed = false;  // uint8 bilinear of 1 to 4 channels: vectors may be kFixed
  int weights = 0;     // taps per pixel of the float plans
  PlanBlock kinds;     // VectorKind per vector of slots
  // Fixed plans: per vector of slots from s, 3 * lanes int32 at 3 * s: base, left, right
  // (fixed_point_u8-inl.h's FixedPlan).
  PlanBlock fixed_plans;
  // Float plans, per segment holding a kPlanned vector (others empty): for the slots from its
  // first kPlanned vector to the end of its last (S of them), S offsets, then S weights per tap
  // (TilePlan's arrays cut to those slots).
  std::unique_ptr<PlanBlock[]> segment_plans;
  PlanBlock fill;                       // MakeFill's floats, when the call has a fill colour
  const float* fill_floats = nullptr;   // in `fill`: the colour as the blends add it, or null
  const uint8_t* fill_pixel = nullptr;  // in `fill`: the colour as a pixel of Y's dtype, or null
  size_t bytes = 0;                     // all of the above

  bool Run(const void* x, void* y, const Threads& threads) const {
    return replay(*this, x, y, threads);
  }
};

// Plans the problem's coordinates (a GridAt, MapPairsAt, MapPlanesAt, FlowPairsAt or
// FlowPlanesAt source with data) into *plan on the target dispatch picks now: true and OK when
// done; false when no fast path covers the problem (Covers), the caller then keeps the maps;
// OutOfRange when the plan's memory cannot be allocated.
bool PrepareMapPlan(const PixelsProblem& problem, std::unique_ptr<MapPlan>* plan, Status* status);

}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_DRIVERS_MAP_PLAN_H_
