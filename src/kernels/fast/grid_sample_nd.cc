// Highway plan/blend kernels for 2-D and 3-D GridSample on float32 NCHW: a vector pass turns
// grid coordinates into window offsets and tap weights once per output pixel (a tile at a
// time), then a blend pass reuses that plan for every channel.
//
// Every axis gets a window of kTaps consecutive input indices that lies inside the image
// (start clamped to [0, S - kTaps]); padding is folded into the plan by moving each tap's
// weight to the window slot of its padded index (zeros: weight 0). The blend therefore
// reads only in-bounds memory, has no bounds checks and no branches on mode or padding.
// Weights are the products of the per-axis weights in the reference's order, and the
// blend sums taps in the reference's order, so interior results equal the reference.
#include <cstdint>
#include <cstring>

#include "fast/fast.h"

#ifndef GRIDSAMPLE_FAST_GRID_SAMPLE_ND_SHAPE_
#define GRIDSAMPLE_FAST_GRID_SAMPLE_ND_SHAPE_
namespace gridsample {
namespace fast {
// Sizes of the problem as the kernels see them (outermost spatial axis first).
struct NdShape {
  int rank;
  int32_t in[3];
  int64_t out_spatial;
  int64_t n, c;
};
}  // namespace fast
}  // namespace gridsample
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "fast/grid_sample_nd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;

constexpr int kTile = 256;  // output pixels per plan (a linear 2-D plan is 5 KB)
constexpr int kMaxLanes = HWY_MAX_BYTES / sizeof(float);

template <Mode M>
constexpr int kTaps = M == Mode::kNearest ? 1 : (M == Mode::kLinear ? 2 : 4);

constexpr int Pow(int base, int exp) { return exp == 0 ? 1 : base * Pow(base, exp - 1); }

// One tile's plan: per output pixel the offset of its window in a channel plane and the
// weight of every window tap (innermost axis fastest).
template <Mode M, int kRank>
struct Plan {
  static constexpr int kWeights = Pow(kTaps<M>, kRank);
  alignas(64) int32_t offset[kTile + kMaxLanes];
  alignas(64) float weight[kWeights][kTile + kMaxLanes];
};

// Per axis: window start and the weight of each window slot, for one vector of pixels.
template <Mode M>
struct AxisPlan {
  VI start;
  VF w[kTaps<M>];
};

// Keys cubic kernel, A = -0.75, written as in the reference.
HWY_INLINE VF CubicNear(DF d, VF t) {  // |t| <= 1: ((A + 2) t - (A + 3)) t t + 1
  const VF a2 = hn::Set(d, 1.25f), a3 = hn::Set(d, 2.25f);
  return hn::Add(hn::Mul(hn::Mul(hn::Sub(hn::Mul(a2, t), a3), t), t), hn::Set(d, 1.0f));
}
HWY_INLINE VF CubicFar(DF d, VF t) {  // 1 < |t| < 2: ((A t - 5A) t + 8A) t - 4A
  const VF a = hn::Set(d, -0.75f);
  const VF a5 = hn::Set(d, -3.75f), a8 = hn::Set(d, -6.0f), a4 = hn::Set(d, -3.0f);
  return hn::Sub(hn::Mul(hn::Add(hn::Mul(hn::Sub(hn::Mul(a, t), a5), t), a8), t), a4);
}

// Padded index of integer taps `i` on an axis of size `size` (reflection; |i| < 2^24).
HWY_INLINE VI Reflect(DF d, VI i, int32_t size, bool align) {
  const DI di;
  if (size == 1) return hn::Zero(di);
  const float period = align ? 2.0f * static_cast<float>(size - 1) : 2.0f * size;
  const VF p = hn::Set(d, period);
  const VF t = hn::ConvertTo(d, i);  // exact: |i| < 2^24
  VF r = hn::Sub(t, hn::Mul(hn::Floor(hn::Div(t, p)), p));  // integers: exact
  // The quotient may round across an integer: bring r into [0, period) exactly.
  r = hn::IfThenElse(hn::Lt(r, hn::Zero(d)), hn::Add(r, p), r);
  r = hn::IfThenElse(hn::Ge(r, p), hn::Sub(r, p), r);
  const VF mirrored = align ? hn::Sub(p, r) : hn::Sub(hn::Sub(p, hn::Set(d, 1.0f)), r);
  const VF s = hn::Set(d, static_cast<float>(size));
  return hn::ConvertTo(di, hn::IfThenElse(hn::Lt(r, s), r, mirrored));
}

// Window and slot weights along one axis for the normalised coordinates g (finite).
// align_corners is a runtime flag: it only picks constants, and keeping it out of the
// template parameters halves the code size (which matters for the wasm download).
template <Mode M, Padding P>
HWY_INLINE void PlanAxis(DF d, VF g, int32_t size, bool align, AxisPlan<M>* out) {
  const DI di;
  constexpr int kT = kTaps<M>;
  const VF one = hn::Set(d, 1.0f);
  const VF half = hn::Set(d, 0.5f);
  if (P == Padding::kReflection) {
    // Reflection repeats every 4 in normalised units; reduce like the reference's fmod.
    const VF reduced = hn::Sub(g, hn::Mul(hn::Set(d, 4.0f), hn::Trunc(hn::Mul(g, hn::Set(d, 0.25f)))));
    g = hn::IfThenElse(hn::Gt(hn::Abs(g), hn::Set(d, 3.0f)), reduced, g);
  }
  VF x;
  if (align) {
    x = hn::Mul(hn::Mul(hn::Add(g, one), half), hn::Set(d, static_cast<float>(size - 1)));
  } else {
    x = hn::Mul(hn::Sub(hn::Mul(hn::Add(g, one), hn::Set(d, static_cast<float>(size))), one), half);
  }
  // As the reference: beyond 2^23 pixels out every float is an integer and all taps pad
  // alike, so clamping there changes nothing and keeps the conversion to int32 defined.
  constexpr float kFar = 8388608.0f;
  x = hn::Min(hn::Max(x, hn::Set(d, -kFar)), hn::Set(d, static_cast<float>(size) + kFar));

  VI tap[kT];
  VF w[kT];
  if (M == Mode::kNearest) {
    tap[0] = hn::ConvertTo(di, hn::Round(x));  // half to even
    w[0] = one;
  } else {
    const VF f = hn::Floor(x);
    const VI i0 = hn::ConvertTo(di, f);
    for (int k = 0; k < kT; ++k) tap[k] = hn::Add(i0, hn::Set(di, k - (kT == 4 ? 1 : 0)));
    if (M == Mode::kLinear) {
      w[0] = hn::Sub(hn::Add(f, one), x);
      w[1] = hn::Sub(x, f);
    } else {
      const VF t = hn::Sub(x, f);
      w[0] = CubicFar(d, hn::Add(t, one));
      w[1] = CubicNear(d, t);
      w[2] = CubicNear(d, hn::Sub(one, t));
      w[3] = CubicFar(d, hn::Sub(hn::Set(d, 2.0f), t));
    }
  }

  const VI zero_i = hn::Zero(di);
  const VI last = hn::Set(di, size - 1);
  for (int k = 0; k < kT; ++k) {
    if (P == Padding::kZeros) {
      const auto inside = hn::And(hn::Gt(tap[k], hn::Set(di, -1)), hn::Lt(tap[k], hn::Set(di, size)));
      w[k] = hn::IfThenElseZero(hn::RebindMask(d, inside), w[k]);
    } else if (P == Padding::kBorder) {
      tap[k] = hn::Min(hn::Max(tap[k], zero_i), last);
    } else {
      tap[k] = Reflect(d, tap[k], size, align);
    }
  }
  if (M == Mode::kNearest) {
    out->start = hn::Min(hn::Max(tap[0], zero_i), last);
    out->w[0] = w[0];
    return;
  }
  // Window start: the smallest tap, kept inside the image. Padded taps of kT consecutive
  // indices span at most kT consecutive indices (size >= kT), so every weight finds a slot.
  VI lo = tap[0];
  for (int k = 1; k < kT; ++k) lo = hn::Min(lo, tap[k]);
  out->start = hn::Min(hn::Max(lo, zero_i), hn::Set(di, size - kT));
  for (int j = 0; j < kT; ++j) {
    const VI slot = hn::Add(out->start, hn::Set(di, j));
    VF sum = hn::Zero(d);
    for (int k = 0; k < kT; ++k) {
      sum = hn::Add(sum, hn::IfThenElseZero(hn::RebindMask(d, hn::Eq(tap[k], slot)), w[k]));
    }
    out->w[j] = sum;
  }
}

using Shape = NdShape;

// Fills plan entries [0, count) from `count` grid points (kRank interleaved coordinates,
// innermost first). Lanes past `count` get offset 0 and weight 0.
template <Mode M, Padding P, int kRank>
void PlanTile(const Shape& shape, bool align, const float* grid, int count,
              Plan<M, kRank>* plan) {
  const DF d;
  const DI di;
  const int lanes = static_cast<int>(hn::Lanes(d));
  constexpr int kT = kTaps<M>;
  int32_t stride[kRank];
  stride[kRank - 1] = 1;
  for (int a = kRank - 2; a >= 0; --a) stride[a] = stride[a + 1] * shape.in[a + 1];

  for (int p = 0; p < count; p += lanes) {
    // The last vector reads from a zero-padded copy so that no grid read runs past the end.
    HWY_ALIGN float tail[kMaxLanes * kRank];
    const float* src = grid + static_cast<int64_t>(p) * kRank;
    if (p + lanes > count) {
      const int valid = count - p;
      std::memset(tail, 0, sizeof(tail));
      std::memcpy(tail, src, sizeof(float) * valid * kRank);
      src = tail;
    }
    VF g[3];
    if (kRank == 2) {
      hn::LoadInterleaved2(d, src, g[1], g[0]);  // (x, y): axis 1 is x
    } else {
      hn::LoadInterleaved3(d, src, g[2], g[1], g[0]);  // (x, y, z)
    }
    auto finite = hn::IsFinite(g[0]);
    for (int a = 1; a < kRank; ++a) finite = hn::And(finite, hn::IsFinite(g[a]));
    AxisPlan<M> axis[kRank];
    for (int a = 0; a < kRank; ++a) {
      PlanAxis<M, P>(d, hn::IfThenElseZero(finite, g[a]), shape.in[a], align, &axis[a]);
    }
    VI offset = hn::Zero(di);
    for (int a = 0; a < kRank; ++a) {
      offset = hn::Add(offset, hn::Mul(axis[a].start, hn::Set(di, stride[a])));
    }
    // Lanes past `count` and non-finite coordinates: weight 0 at offset 0.
    const auto live = hn::And(finite, hn::RebindMask(d, hn::Lt(hn::Iota(di, p), hn::Set(di, count))));
    hn::Store(hn::IfThenElseZero(hn::RebindMask(di, live), offset), di, plan->offset + p);
    // Weight of tap (k_0, .., k_{r-1}): product over axes, innermost axis first, as the
    // reference multiplies (1 * w_x) * w_y ...
    for (int t = 0; t < Plan<M, kRank>::kWeights; ++t) {
      int rest = t;
      int k[kRank];
      for (int a = kRank - 1; a >= 0; --a) {
        k[a] = rest % kT;
        rest /= kT;
      }
      VF w = axis[kRank - 1].w[k[kRank - 1]];
      for (int a = kRank - 2; a >= 0; --a) w = hn::Mul(w, axis[a].w[k[a]]);
      hn::Store(hn::IfThenElseZero(live, w), d, plan->weight[t] + p);
    }
  }
}

// y[p] = sum over window taps of weight * x[offset + tap], p in [0, count).
template <Mode M, int kRank>
void BlendTile(const Shape& shape, const Plan<M, kRank>& plan, int count, const float* x,
               float* y) {
  const DF d;
  const DI di;
  const int lanes = static_cast<int>(hn::Lanes(d));
  constexpr int kT = kTaps<M>;
  constexpr int kW = Plan<M, kRank>::kWeights;
  int32_t tap_offset[kW];  // element offset of each window tap from the window start
  for (int t = 0; t < kW; ++t) {
    int rest = t, off = 0, stride = 1;
    for (int a = kRank - 1; a >= 0; --a) {
      off += (rest % kT) * stride;
      rest /= kT;
      stride *= shape.in[a];
    }
    tap_offset[t] = off;
  }
  for (int p = 0; p < count; p += lanes) {
    const VI base = hn::Load(di, plan.offset + p);
    VF acc;
    if (M == Mode::kNearest) {
      const VF v = hn::GatherIndex(d, x, base);
      acc = hn::IfThenElseZero(hn::Ne(hn::Load(d, plan.weight[0] + p), hn::Zero(d)), v);
    } else {
      acc = hn::Mul(hn::Load(d, plan.weight[0] + p), hn::GatherIndex(d, x, base));
      for (int t = 1; t < kW; ++t) {
        const VF v = hn::GatherIndex(d, x + tap_offset[t], base);
        acc = hn::Add(acc, hn::Mul(hn::Load(d, plan.weight[t] + p), v));
      }
    }
    if (p + lanes <= count) {
      hn::StoreU(acc, d, y + p);
    } else {
      HWY_ALIGN float tail[kMaxLanes];
      hn::Store(acc, d, tail);
      std::memcpy(y + p, tail, sizeof(float) * (count - p));
    }
  }
}

template <Mode M, Padding P, int kRank>
void Run(const Shape& shape, bool align, const float* x, const float* grid, float* y) {
  Plan<M, kRank> storage;  // on the stack, 64-byte aligned members;: at most 17 KB (2-D cubic)
  Plan<M, kRank>* plan = &storage;
  int64_t in_spatial = 1;
  for (int a = 0; a < kRank; ++a) in_spatial *= shape.in[a];
  for (int64_t n = 0; n < shape.n; ++n) {
    for (int64_t t = 0; t < shape.out_spatial; t += kTile) {
      const int count = static_cast<int>(shape.out_spatial - t < kTile ? shape.out_spatial - t : kTile);
      PlanTile<M, P, kRank>(shape, align, grid + (n * shape.out_spatial + t) * kRank, count,
                            plan);
      for (int64_t c = 0; c < shape.c; ++c) {
        BlendTile<M, kRank>(shape, *plan, count, x + (n * shape.c + c) * in_spatial,
                            y + (n * shape.c + c) * shape.out_spatial + t);
      }
    }
  }
}

using RunFn = void (*)(const Shape&, bool, const float*, const float*, float*);

template <int kRank, Mode M>
RunFn PickPadding(Padding padding) {
  switch (padding) {
    case Padding::kZeros: return &Run<M, Padding::kZeros, kRank>;
    case Padding::kBorder: return &Run<M, Padding::kBorder, kRank>;
    case Padding::kReflection: return &Run<M, Padding::kReflection, kRank>;
  }
  return nullptr;
}

// Entry for one target: resolves the runtime options into template parameters once.
void GridSampleF32(const Shape& shape, Mode mode, Padding padding, bool align, const float* x,
                   const float* grid, float* y) {
  RunFn fn = nullptr;
  if (shape.rank == 2) {
    switch (mode) {
      case Mode::kLinear: fn = PickPadding<2, Mode::kLinear>(padding); break;
      case Mode::kNearest: fn = PickPadding<2, Mode::kNearest>(padding); break;
      case Mode::kCubic: fn = PickPadding<2, Mode::kCubic>(padding); break;
    }
  } else {
    switch (mode) {
      case Mode::kLinear: fn = PickPadding<3, Mode::kLinear>(padding); break;
      case Mode::kNearest: fn = PickPadding<3, Mode::kNearest>(padding); break;
      case Mode::kCubic: break;  // 64 taps: the generic path handles it
    }
  }
  if (fn) fn(shape, align, x, grid, y);
}

int64_t TargetBits() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(GridSampleF32);
HWY_EXPORT(TargetBits);

#if GRIDSAMPLE_STATIC_DISPATCH
#define GRIDSAMPLE_DISPATCH(fn) HWY_STATIC_DISPATCH(fn)
#else
#define GRIDSAMPLE_DISPATCH(fn) HWY_DYNAMIC_DISPATCH(fn)
#endif

bool GridSample(const GridSampleGeometry& geo, const TensorView& x, const TensorView& grid,
                const MutableTensorView& y, const GridSampleOptions& options) {
  if (x.dtype != DType::kFloat32 || grid.dtype != DType::kFloat32) return false;
  if (geo.rank != 2 && geo.rank != 3) return false;
  if (geo.rank == 3 && options.mode == Mode::kCubic) return false;
  // Offsets are int32 and reflection works on exact float integers (|index| < 2^24).
  if (geo.in_spatial >= (int64_t{1} << 31)) return false;
  const int window = options.mode == Mode::kNearest ? 1 : (options.mode == Mode::kLinear ? 2 : 4);
  NdShape shape;
  shape.rank = geo.rank;
  shape.n = geo.n;
  shape.c = geo.c;
  shape.out_spatial = geo.out_spatial;
  for (int a = 0; a < geo.rank; ++a) {
    if (geo.in[a] < window || geo.in[a] >= (int64_t{1} << 21)) return false;
    shape.in[a] = static_cast<int32_t>(geo.in[a]);
  }
  if (geo.n * geo.c * geo.out_spatial == 0) return true;  // nothing to write
  GRIDSAMPLE_DISPATCH(GridSampleF32)(shape, options.mode, options.padding, options.align_corners,
                                     static_cast<const float*>(x.data),
                                     static_cast<const float*>(grid.data),
                                     static_cast<float*>(y.data));
  return true;
}

const char* TargetName() { return hwy::TargetName(GRIDSAMPLE_DISPATCH(TargetBits)()); }

const char* TargetNameOf(int64_t target) { return hwy::TargetName(target); }

#if GRIDSAMPLE_STATIC_DISPATCH
std::vector<int64_t> TargetsForTest() { return {HWY_STATIC_TARGET}; }
void SetTargetForTest(int64_t) {}
#else
std::vector<int64_t> TargetsForTest() {
  hwy::SetSupportedTargetsForTest(0);
  return hwy::SupportedAndGeneratedTargets();
}
void SetTargetForTest(int64_t target) {
  hwy::SetSupportedTargetsForTest(target);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}
#endif

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
