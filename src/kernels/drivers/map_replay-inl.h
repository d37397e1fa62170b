// The replay of a fixed map's plans (drivers/map_plan.h), for map_plan_driver.cc: each row
// segment's vectors blended from the kept plans, the fixed-point ones without their check (made
// at preparation), the others from the float plans copied back where the blends read them.
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_DRIVERS_MAP_REPLAY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_DRIVERS_MAP_REPLAY_INL_H_
#undef GRIDSAMPLE_DRIVERS_MAP_REPLAY_INL_H_
#else
#define GRIDSAMPLE_DRIVERS_MAP_REPLAY_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "blends/fixed_point_u8-inl.h"
#include "drivers/map_plan.h"
#include "drivers/pixel_rows-inl.h"
#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"
#include "threads/parallel.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

HWY_INLINE int LanesNow() { return static_cast<int>(hn::Lanes(DF())); }

// The geometry every pass shares: segment s = line * tiles + t, its slots and count of pixels.
struct Segments {
  const MapPlan& plan;
  int64_t Slot(int64_t line, int64_t t) const { return line * plan.padded_w + t * plan.tile; }
  int Count(int64_t t) const {
    return static_cast<int>(std::min<int64_t>(plan.tile, plan.width - t * plan.tile));
  }
};

// A fixed plan's vector as FixedBlend reads it.
struct FixedPlanView {
  const int32_t* base;
  const int32_t* left;
  const int32_t* right;
};

// The fixed-point blend of the vectors from v on that the plan marks kFixed (pixels_driver.cc's
// FixedRow without the check, made at preparation); returns the first vector that is not.
template <int C>
HWY_NOINLINE int FixedRun(const FixedSetup& setup, const VectorKind* kinds, const int32_t* blocks,
                          const uint8_t* x, int v, int count, uint8_t* out) {
  const FixedSetup s = setup;  // local: the stores to `out` could alias it
  const int lanes = LanesNow();
  for (; v < count && kinds[v / lanes] == VectorKind::kFixed; v += lanes) {
    const int32_t* b = blocks + 3 * v;
    const int valid = count - v < lanes ? count - v : lanes;
    FixedBlend<C>(FixedPlanView{b, b + lanes, b + 2 * lanes}, x, s.row, s.idx_left, s.idx_right,
                  valid, v + valid == count, out + v * C);
  }
  return v;
}

HWY_INLINE int FixedRunOf(int c, const FixedSetup& s, const VectorKind* kinds,
                          const int32_t* blocks, const uint8_t* x, int v, int count, uint8_t* out) {
  switch (c) {
    case 1: return FixedRun<1>(s, kinds, blocks, x, v, count, out);
    case 2: return FixedRun<2>(s, kinds, blocks, x, v, count, out);
    case 3: return FixedRun<3>(s, kinds, blocks, x, v, count, out);
    default: return FixedRun<4>(s, kinds, blocks, x, v, count, out);
  }
}

// One thread's share of a run, unit by unit (RowUnits: batch item, column tile, line).
template <Mode M>
class Replayer {
 public:
  Replayer(const MapPlan& plan, const void* x, void* y)
      : plan_(plan),
        pb_(plan.problem),
        elem_(DTypeSize(pb_.dtype)),
        in_count_(static_cast<int64_t>(pb_.axes.in_h) * pb_.axes.in_w * pb_.c),
        out_count_(pb_.axes.out_h * pb_.axes.out_w * pb_.c),
        x_(static_cast<const uint8_t*>(x)),
        y_(static_cast<uint8_t*>(y)),
        fs_(MakeFixedSetup(pb_, pb_.axes.in_w * pb_.c)),
        im_{nullptr,
            tail_,
            pb_.axes.in_w * pb_.c,
            (pb_.axes.in_h - kTaps<M>)*pb_.axes.in_w * pb_.c + (pb_.axes.in_w - kTaps<M>)*pb_.c,
            plan.fill_floats,
            plan.fill_pixel} {}

  HWY_INLINE void Run(const RowUnits& units, int64_t u) {
    const int64_t n = units.Item(u), t = units.Tile(u), i = units.Row(u);
    if (n != item_) {
      item_ = n;
      x_n_ = x_ + n * in_count_ * elem_;
      y_n_ = y_ + n * out_count_ * elem_;
      im_.x = x_n_;
      if (pb_.c == 3) std::memcpy(tail_, x_n_ + (in_count_ - 3) * elem_, 3 * elem_);
    }
    const Segments seg{plan_};
    const int lanes = plan_.lanes;
    const int count = seg.Count(t);
    const int64_t r = n * plan_.lines + i;
    const int64_t slot = seg.Slot(r, t);
    const auto* kinds = static_cast<const VectorKind*>(plan_.kinds.data) + slot / lanes;
    const PlanBlock& floats = plan_.segment_plans[r * plan_.tiles + t];
    if (floats.data != nullptr) {  // the planned slots back where the blends read them
      const int b = floats.begin, slots = floats.slots;
      const auto* in = static_cast<const int32_t*>(floats.data);
      std::memcpy(tile_.offset + b, in, sizeof(int32_t) * slots);
      for (int w = 0; w < TilePlan<M, 2>::kWeights; ++w) {
        std::memcpy(tile_.weight[w] + b, in + (1 + w) * slots, sizeof(float) * slots);
      }
    }
    uint8_t* out = y_n_ + (i * plan_.width + t * plan_.tile) * pb_.c * elem_;
    for (int v = 0; v < count;) {
      const VectorKind kind = kinds[v / lanes];
      if (kind == VectorKind::kFixed) {
        const auto* blocks = static_cast<const int32_t*>(plan_.fixed_plans.data) + 3 * slot;
        v = FixedRunOf(pb_.c, fs_, kinds, blocks, x_n_, v, count, out);
        continue;
      }
      const int first = v;
      while (v < count && kinds[v / lanes] == kind) v += lanes;
      const int end = v < count ? v : count;
      if (kind == VectorKind::kPlanned) {
        BlendSegment<M>(tile_, pb_.dtype, pb_.c, im_, first, end, count - 1, out);
      } else {
        StoreOutside(im_.fill_pixel, pb_.c * elem_, first, end, out);
      }
    }
  }

 private:
  const MapPlan& plan_;
  const InterleavedProblem& pb_;
  const size_t elem_;
  const int64_t in_count_, out_count_;
  const uint8_t* const x_;
  uint8_t* const y_;
  const FixedSetup fs_;
  TilePlan<M, 2> tile_;
  HWY_ALIGN uint8_t tail_[16] = {};  // C = 3: X's last pixel and a zero, of either dtype
  ImageBytes im_;
  int64_t item_ = -1;
  const uint8_t* x_n_ = nullptr;
  uint8_t* y_n_ = nullptr;
};

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_DRIVERS_MAP_REPLAY_INL_H_
