// The planner over a tile of output pixels: every axis's plan combined into one window offset
// and one weight per tap for each pixel (TilePlan), which every blend reads; sources fill
// TileCoords for it, or hand it their positions vector by vector (PlanTile's Positions).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_PLANNER_TILE_PLAN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_PLANNER_TILE_PLAN_INL_H_
#undef GRIDSAMPLE_PLANNER_TILE_PLAN_INL_H_
#else
#define GRIDSAMPLE_PLANNER_TILE_PLAN_INL_H_
#endif

#include <cstdint>

#include "gridsample/types.h"
#include "hwy/highway.h"
#include "planner/axis_plan-inl.h"
#include "planner/lanes-inl.h"
#include "planner/limits.h"
#include "rules/pixel_rule.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The plans of one tile of output pixels, structure of arrays: the offset of each pixel's
// window in the image, then the weight of each window tap for each pixel. A tile's plans
// (kTilePlanBytes) stay in cache while every channel is blended from them.
template <Mode M, int kRank>
struct TilePlan {
  static constexpr int kWeights = Pow(kTaps<M>, kRank);
  static constexpr int kPixels = FloorPow2(kTilePlanBytes / (4 * (kWeights + 1))) < kMaxTilePixels
                                     ? FloorPow2(kTilePlanBytes / (4 * (kWeights + 1)))
                                     : kMaxTilePixels;
  static_assert(kPixels % kMaxLanes == 0, "a tile holds whole vectors");
  HWY_ALIGN int32_t offset[kPixels];
  HWY_ALIGN float weight[kWeights][kPixels];
};

// The axes of an image as the planner sees them (outermost first): sizes, and the element
// strides that turn window starts into an offset.
template <int kRank>
struct PlanAxes {
  int32_t size[kRank];
  int32_t stride[kRank];
  bool align;
};

// Plans the pixels [p, p + Lanes) of a tile from their pixel positions x[a] (axis a, outermost
// first, as ToPixels gives them: clamped, reduced for reflection, or non-finite). kInterleaved
// (channels-last images): the innermost axis has
// a stride (the channel count), and the result says whether some lane has a non-zero weight
// (zeros padding leaves none for pixels whose taps all lie outside); planes have neither, and
// their drivers skip that work.
template <Mode M, Padding P, int kRank, bool kInterleaved = false>
HWY_INLINE bool PlanVector(const PlanAxes<kRank>& axes, const VF* x, int p,
                           TilePlan<M, kRank>* plan) {
  const DF d;
  const DI di;
  constexpr int kT = kTaps<M>;
  // The non-finite rule (rules/non_finite.h) for every lane: x * 0 is 0 for finite x and NaN
  // otherwise, so one test covers every axis.
  VF probe = hn::Mul(x[0], hn::Zero(d));
  for (int a = 1; a < kRank; ++a) probe = hn::Add(probe, hn::Mul(x[a], hn::Zero(d)));
  const auto finite = hn::Eq(probe, probe);
  // Written out, not looped: compilers keep such a loop rolled (PlanPixels is large), which
  // sends the axis plans through memory and recomputes the per-axis constants every vector.
  AxisPlan<M> axis[kRank];
  PlanPixels<M, P>(d, hn::IfThenElseZero(finite, x[0]), axes.size[0], axes.align, &axis[0]);
  PlanPixels<M, P>(d, hn::IfThenElseZero(finite, x[1]), axes.size[1], axes.align, &axis[1]);
  if constexpr (kRank == 3) {
    PlanPixels<M, P>(d, hn::IfThenElseZero(finite, x[2]), axes.size[2], axes.align, &axis[2]);
  }
  VI offset = axis[kRank - 1].start;
  if (kInterleaved) offset = hn::Mul(offset, hn::Set(di, axes.stride[kRank - 1]));
  for (int a = kRank - 2; a >= 0; --a) {
    offset = hn::Add(offset, hn::Mul(axis[a].start, hn::Set(di, axes.stride[a])));
  }
  hn::Store(offset, di, plan->offset + p);
  // Non-finite coordinates get weight 0: every axis weight is +0 there, so every product is
  // +0 too (masking the axes costs kRank * kT selects instead of one per tap).
  for (int a = 0; a < kRank; ++a) {
    for (int k = 0; k < kT; ++k) axis[a].w[k] = hn::IfThenElseZero(finite, axis[a].w[k]);
  }
  // Weight of tap (k_0, .., k_{r-1}): product over axes, innermost axis first, as the
  // reference multiplies (1 * w_x) * w_y ...
  for (int t = 0; t < TilePlan<M, kRank>::kWeights; ++t) {
    int rest = t;
    int k[kRank];
    for (int a = kRank - 1; a >= 0; --a) {
      k[a] = rest % kT;
      rest /= kT;
    }
    VF w = axis[kRank - 1].w[k[kRank - 1]];
    for (int a = kRank - 2; a >= 0; --a) w = hn::Mul(w, axis[a].w[k[a]]);
    hn::Store(w, d, plan->weight[t] + p);
  }
  if (!kInterleaved) return true;
  auto any = hn::Ne(hn::Zero(d), hn::Zero(d));  // every axis has a non-zero weight
  for (int a = 0; a < kRank; ++a) {
    auto axis_any = hn::Ne(axis[a].w[0], hn::Zero(d));
    for (int k = 1; k < kT; ++k) axis_any = hn::Or(axis_any, hn::Ne(axis[a].w[k], hn::Zero(d)));
    any = a == 0 ? axis_any : hn::And(any, axis_any);
  }
  return !hn::AllFalse(d, any);
}

// The coordinates of a tile's pixels (in the source's space, then as pixel positions), one
// array per axis (outermost first), as sources fill them; whole vectors (a partial last one is
// padded with zeros).
template <int kRank>
struct TileCoords {
  HWY_ALIGN float g[kRank][kMaxTilePixels + kMaxLanes];
};

// The coordinates [begin, end) of a channels-last tile (begin a multiple of Lanes) in space S as
// pixel positions (ToPixels), in place, for `padding`.
template <CoordinateSpace S, int kRank>
HWY_NOINLINE void TileToPixels(const PlanAxes<kRank>& axes, Padding padding, int begin, int end,
                               TileCoords<kRank>* coords) {
  const DF d;
  for (int p = begin; p < end; p += static_cast<int>(hn::Lanes(d))) {
    for (int a = 0; a < kRank; ++a) {
      float* g = coords->g[a] + p;
      hn::Store(ToPixels<S>(d, hn::Load(d, g), axes.size[a], axes.align, padding), d, g);
    }
  }
}

// A tile's pixel positions as TileToPixels left them, for PlanTile, which marks the vectors
// whose taps all lie outside X (kMarksEmpty) for the driver to store without blending.
template <int kRank>
struct StoredPositions {
  static constexpr bool kMarksEmpty = true;
  const TileCoords<kRank>* coords;

  template <Padding P>
  HWY_INLINE void At(const PlanAxes<kRank>& /*axes*/, int p, int /*end*/, VF* x) const {
    for (int a = 0; a < kRank; ++a) x[a] = hn::Load(DF(), coords->g[a] + p);
  }
};

// Plans the pixels [begin, end) of a channels-last tile (begin a multiple of Lanes) from their
// pixel positions, vector p's from positions.At<P>(axes, p, end, x) (StoredPositions, or a
// source's coordinates converted on the way, as the grid's GridPositions), and, where
// Positions::kMarksEmpty, records per vector whether PlanVector found some weight (`nonempty`,
// one per vector). One instance per mode, padding, rank and kind of positions, shared by every
// channels-last source.
template <Mode M, Padding P, int kRank, class Positions>
HWY_NOINLINE void PlanTile(const PlanAxes<kRank>& axes_in, const Positions& positions_in, int begin,
                           int end, TilePlan<M, kRank>* HWY_RESTRICT plan,
                           bool* HWY_RESTRICT nonempty) {
  // Local copies: otherwise the plan's stores could alias the axes and the positions, which the
  // compiler would then reload for every vector.
  const PlanAxes<kRank> axes = axes_in;
  const Positions positions = positions_in;
  const int lanes = static_cast<int>(hn::Lanes(DF()));
  for (int p = begin; p < end; p += lanes) {
    VF x[kRank];
    positions.template At<P>(axes, p, end, x);
    const bool any = PlanVector<M, P, kRank, /*kInterleaved=*/true>(axes, x, p, plan);
    if constexpr (Positions::kMarksEmpty) nonempty[p / lanes] = any;
  }
}

// PlanTile with the padding chosen at run time (once per tile).
template <Mode M, int kRank, class Positions>
HWY_INLINE void PlanTileFor(Padding padding, const PlanAxes<kRank>& axes,
                            const Positions& positions, int begin, int end,
                            TilePlan<M, kRank>* plan, bool* nonempty) {
  switch (padding) {
    case Padding::kZeros:
      return PlanTile<M, Padding::kZeros, kRank>(axes, positions, begin, end, plan, nonempty);
    case Padding::kBorder:
      return PlanTile<M, Padding::kBorder, kRank>(axes, positions, begin, end, plan, nonempty);
    case Padding::kReflection:
      return PlanTile<M, Padding::kReflection, kRank>(axes, positions, begin, end, plan, nonempty);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_PLANNER_TILE_PLAN_INL_H_
