// The planner on its own, for tests: one axis (ToPixels, then PlanPixels) on the dispatched
// target for given coordinates (normalised or pixel positions), so that plans can be checked
// against the reference's per-axis taps on every target.
#include <cstdint>
#include <cstring>

#include "probes/probes.h"

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "probes/plan_probe.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <Mode M, Padding P>
void Probe(CoordinateSpace space, int32_t size, bool align, const float* g, int count,
           int32_t* start, float* weight) {
  const DF d;
  const DI di;
  const int lanes = static_cast<int>(hn::Lanes(d));
  for (int v = 0; v < count; v += lanes) {
    const int valid = count - v < lanes ? count - v : lanes;
    HWY_ALIGN float in[kMaxLanes] = {};
    std::memcpy(in, g + v, sizeof(float) * valid);
    AxisPlan<M> plan;
    const VF g = hn::Load(d, in);
    const VF x = space == CoordinateSpace::kPixels
                     ? ToPixels<CoordinateSpace::kPixels>(d, g, size, align, P)
                     : ToPixels<CoordinateSpace::kNormalised>(d, g, size, align, P);
    PlanPixels<M, P>(d, x, size, align, &plan);
    HWY_ALIGN int32_t s[kMaxLanes];
    HWY_ALIGN float w[kTaps<M>][kMaxLanes];
    hn::Store(plan.start, di, s);
    for (int k = 0; k < kTaps<M>; ++k) hn::Store(plan.w[k], d, w[k]);
    for (int l = 0; l < valid; ++l) {
      start[v + l] = s[l];
      for (int k = 0; k < kTaps<M>; ++k) weight[(v + l) * 4 + k] = w[k][l];
    }
  }
}

template <Mode M>
void ProbeMode(Padding padding, CoordinateSpace space, int32_t size, bool align, const float* g,
               int count, int32_t* start, float* weight) {
  switch (padding) {
    case Padding::kZeros:
      return Probe<M, Padding::kZeros>(space, size, align, g, count, start, weight);
    case Padding::kBorder:
      return Probe<M, Padding::kBorder>(space, size, align, g, count, start, weight);
    case Padding::kReflection:
      return Probe<M, Padding::kReflection>(space, size, align, g, count, start, weight);
  }
}

void ProbePlanAxisOnTarget(Mode mode, Padding padding, CoordinateSpace space, int32_t size,
                           bool align, const float* g, int count, int32_t* start, float* weight) {
  switch (mode) {
    case Mode::kLinear:
      return ProbeMode<Mode::kLinear>(padding, space, size, align, g, count, start, weight);
    case Mode::kNearest:
      return ProbeMode<Mode::kNearest>(padding, space, size, align, g, count, start, weight);
    case Mode::kCubic:
      return ProbeMode<Mode::kCubic>(padding, space, size, align, g, count, start, weight);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(ProbePlanAxisOnTarget);

void ProbePlanAxis(Mode mode, Padding padding, CoordinateSpace space, int32_t size, bool align,
                   const float* g, int count, int32_t* start, float* weight) {
  GRIDSAMPLE_DISPATCH(ProbePlanAxisOnTarget)
  (mode, padding, space, size, align, g, count, start, weight);
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
