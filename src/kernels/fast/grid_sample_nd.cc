// Highway plan/blend kernels for 2-D and 3-D GridSample (every mode) on NCHW tensors: for
// each tile of output pixels the plans (window offsets and tap weights, see plan-inl.h) are
// computed once, then every channel is blended from them. The kernels work in float32; the
// other types the reference computes in float are converted around them.
//
// The blend reads only in-bounds memory, has no bounds checks and no branches on mode or
// padding. Weights are the products of the per-axis weights in the reference's order, and
// the blend sums taps in the reference's order, so interior results equal the reference.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "dtype_traits.h"
#include "half.h"
#include "fast/fast.h"
#include "reference/reference.h"

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
#include "fast/plan-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using Shape = NdShape;

constexpr int FloorPow2(int v) { return v < 2 ? 1 : 2 * FloorPow2(v / 2); }

// The plans of one tile of output pixels, structure of arrays: the window offset of each
// pixel, then the weight of each window tap for each pixel. A tile's plans (at most 32 KiB)
// stay in L1/L2 while every channel is blended from them, and each channel then walks its
// own plane for the whole tile instead of visiting every plane once per vector (which
// thrashes the cache when the C planes do not fit in it).
template <Mode M, int kRank>
struct TilePlan {
  static constexpr int kWeights = Pow(kTaps<M>, kRank);
  static constexpr int kPixels = FloorPow2(32768 / (4 * (kWeights + 1))) < 1024
                                     ? FloorPow2(32768 / (4 * (kWeights + 1)))
                                     : 1024;
  static_assert(kPixels % kMaxLanes == 0, "a tile holds whole vectors");
  HWY_ALIGN int32_t offset[kPixels];
  HWY_ALIGN float weight[kWeights][kPixels];
};

// Plans the pixels [p, p + Lanes) of the tile, whose kRank interleaved coordinates
// (innermost first) start at `src`.
template <Mode M, Padding P, int kRank>
HWY_INLINE void PlanVector(const Shape& shape, bool align, const int32_t* stride,
                           const float* src, int p, TilePlan<M, kRank>* plan) {
  const DF d;
  const DI di;
  constexpr int kT = kTaps<M>;
  VF g[3];
  if (kRank == 2) {
    hn::LoadInterleaved2(d, src, g[1], g[0]);  // (x, y): axis 1 is x
  } else {
    hn::LoadInterleaved3(d, src, g[2], g[1], g[0]);  // (x, y, z)
  }
  // g * 0 is 0 for finite g and NaN otherwise: one test covers every axis.
  VF probe = hn::Mul(g[0], hn::Zero(d));
  for (int a = 1; a < kRank; ++a) probe = hn::Add(probe, hn::Mul(g[a], hn::Zero(d)));
  const auto finite = hn::Eq(probe, probe);
  // Written out, not looped: compilers keep such a loop rolled (PlanAxis is large), which
  // sends the axis plans through memory and recomputes the per-axis constants every vector.
  AxisPlan<M> axis[kRank];
  PlanAxis<M, P>(d, hn::IfThenElseZero(finite, g[0]), shape.in[0], align, &axis[0]);
  PlanAxis<M, P>(d, hn::IfThenElseZero(finite, g[1]), shape.in[1], align, &axis[1]);
  if constexpr (kRank == 3) {
    PlanAxis<M, P>(d, hn::IfThenElseZero(finite, g[2]), shape.in[2], align, &axis[2]);
  }
  VI offset = axis[kRank - 1].start;
  for (int a = kRank - 2; a >= 0; --a) {
    offset = hn::Add(offset, hn::Mul(axis[a].start, hn::Set(di, stride[a])));
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
}

// The blend's vectors: the plan's width, but 8 lanes on AVX-512, where 16-lane vectors made
// the blend-bound workloads slower than AVX2 (their taps are loaded and assembled 128 bits at
// a time either way): feat2d 0.36 vs 0.29 ms, vol3d 2.8 vs 2.2 ms (CPU time, Zen 5). The
// plan keeps 16 lanes: img2d, planning 3 channels' pixels, took 0.75 ms there vs 0.82 on AVX2.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
using DB = hn::CappedTag<float, 8>;
#else
using DB = DF;
#endif
using VB = hn::Vec<DB>;

// Sum over window taps of weight * x[offset + tap] for the pixels [p, p + Lanes) of the
// tile, in the reference's order.
template <Mode M, int kRank>
HWY_INLINE VB BlendVector(const TilePlan<M, kRank>& plan, int p, const int32_t* tap_offset,
                          const float* x) {
  const DB d;
  constexpr int kW = TilePlan<M, kRank>::kWeights;
  if (M == Mode::kNearest) {
    return hn::IfThenElseZero(hn::Ne(hn::Load(d, plan.weight[0] + p), hn::Zero(d)),
                              Gather(d, x, plan.offset + p));
  }
  VB acc = hn::Zero(d);
  if (M == Mode::kCubic) {  // runs of 4 taps along the innermost axis
    for (int t = 0; t < kW; t += 4) {
      VB q[4];
      GatherQuad(d, x + tap_offset[t], plan.offset + p, q);
      for (int k = 0; k < 4; ++k) {
        const VB wq = hn::Mul(hn::Load(d, plan.weight[t + k] + p), q[k]);
        acc = t + k == 0 ? wq : hn::Add(acc, wq);
      }
    }
    return acc;
  }
  // Runs of 2 taps along the innermost axis: read them a pair at a time.
  for (int t = 0; t < kW; t += 2) {
    VB a, b;
    GatherPair(d, x + tap_offset[t], plan.offset + p, &a, &b);
    const VB wa = hn::Load(d, plan.weight[t] + p);
    acc = t == 0 ? hn::Mul(wa, a) : hn::Add(acc, hn::Mul(wa, a));
    acc = hn::Add(acc, hn::Mul(hn::Load(d, plan.weight[t + 1] + p), b));
  }
  return acc;
}

// Stores v's first `valid` lanes (a whole vector or the tile's partial last one) at `out`.
HWY_INLINE void StoreLanes(VB v, int valid, float* out) {
  const DB d;
  if (valid >= static_cast<int>(hn::Lanes(d))) {
    hn::StoreU(v, d, out);
  } else {
    HWY_ALIGN float part[hn::MaxLanes(DB())];
    hn::Store(v, d, part);
    std::memcpy(out, part, sizeof(float) * valid);
  }
}

// Channels x[0..kCh) of a tile into out[0..kCh): the tile's `count` pixels. The channels
// share the plans, so blending two at a time loads each offset and weight once for both
// (wasm instructions per call: feat2d -24%, img2d -6%); a last odd channel goes alone, two
// vectors per iteration (V8 spends a fifth of a one-vector iteration on the loop itself).
// Cubic takes one channel and one vector at a time: its loads already crowd the registers.
template <Mode M, int kRank, int kCh>
HWY_INLINE void BlendTile(const TilePlan<M, kRank>& plan, int count,
                          const int32_t* HWY_RESTRICT tap_offset, const float* const* x,
                          float* const* out) {
  const DB d;
  const int lanes = static_cast<int>(hn::Lanes(d));
#if HWY_TARGET == HWY_WASM
  if constexpr (M == Mode::kCubic) {
    // A few rows of the window at a time (2-D: two, 3-D: one; fewest instructions in V8),
    // each pass over the whole tile, summing into `acc` in the reference's order: not the
    // window's 16 or 64 taps per vector at once, whose loads V8 cannot keep in registers
    // (wasm instructions per call: cubic2d -2.5%, cubic3d -15%; natively it costs 12% more).
    static_assert(kCh == 1, "cubic blends one channel at a time");
    constexpr int kW = TilePlan<M, kRank>::kWeights;
    constexpr int kRows = kRank == 2 ? 2 : 1;
    HWY_ALIGN float acc[TilePlan<M, kRank>::kPixels + kMaxLanes] = {};
    for (int t = 0; t < kW; t += 4 * kRows) {
      for (int p = 0; p < count; p += lanes) {
        VB q[4 * kRows];
        for (int r = 0; r < kRows; ++r) {
          GatherQuad(d, x[0] + tap_offset[t + 4 * r], plan.offset + p, q + 4 * r);
        }
        VB a = hn::Load(d, acc + p);
        for (int k = 0; k < 4 * kRows; ++k) {
          a = hn::Add(a, hn::Mul(hn::Load(d, plan.weight[t + k] + p), q[k]));
        }
        hn::Store(a, d, acc + p);
      }
    }
    std::memcpy(out[0], acc, sizeof(float) * count);
    return;
  }
#endif
  float* HWY_RESTRICT o[kCh];
  for (int c = 0; c < kCh; ++c) o[c] = out[c];
  // One channel: two vectors per iteration (nearest and 2-D linear).
  constexpr bool kLight = M == Mode::kNearest || (M == Mode::kLinear && kRank == 2);
  constexpr int kUnroll = kCh == 1 && kLight ? 2 : 1;
  int p = 0;
  for (; p + kUnroll * lanes <= count; p += kUnroll * lanes) {
    VB v[kUnroll][kCh];
    for (int u = 0; u < kUnroll; ++u) {
      for (int c = 0; c < kCh; ++c) {
        v[u][c] = BlendVector<M, kRank>(plan, p + u * lanes, tap_offset, x[c]);
      }
    }
    for (int u = 0; u < kUnroll; ++u) {
      for (int c = 0; c < kCh; ++c) hn::StoreU(v[u][c], d, o[c] + p + u * lanes);
    }
  }
  for (; p < count; p += lanes) {  // the rest: whole vectors, then a partial one
    for (int c = 0; c < kCh; ++c) {
      StoreLanes(BlendVector<M, kRank>(plan, p, tap_offset, x[c]), count - p, o[c] + p);
    }
  }
}

template <Mode M, Padding P, int kRank>
void Run(const Shape& shape, bool align, const float* x, const float* grid, float* y) {
  const DF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  constexpr int kT = kTaps<M>;
  constexpr int kW = TilePlan<M, kRank>::kWeights;
  int32_t stride[kRank];  // element strides of X's spatial axes
  stride[kRank - 1] = 1;
  for (int a = kRank - 2; a >= 0; --a) stride[a] = stride[a + 1] * shape.in[a + 1];
  int32_t tap_offset[kW];  // element offset of each window tap from the window start
  for (int t = 0; t < kW; ++t) {
    int rest = t, off = 0;
    for (int a = kRank - 1; a >= 0; --a) {
      off += (rest % kT) * stride[a];
      rest /= kT;
    }
    tap_offset[t] = off;
  }
  const int64_t in_spatial = static_cast<int64_t>(stride[0]) * shape.in[0];
  const int64_t out_spatial = shape.out_spatial;
  TilePlan<M, kRank> plan;
  constexpr int kTile = TilePlan<M, kRank>::kPixels;
  for (int64_t n = 0; n < shape.n; ++n) {
    const float* x_n = x + n * shape.c * in_spatial;
    float* y_n = y + n * shape.c * out_spatial;
    const float* grid_n = grid + n * out_spatial * kRank;
    for (int64_t p0 = 0; p0 < out_spatial; p0 += kTile) {
      const int count = static_cast<int>(out_spatial - p0 < kTile ? out_spatial - p0 : kTile);
      // The last vector of a tile may be partial: it plans from a zero-padded copy of the
      // grid (its extra lanes are valid pixels whose results are dropped), so no read runs
      // past the grid. One call site for planning keeps the code small.
      for (int p = 0; p < count; p += lanes) {
        const float* src = grid_n + (p0 + p) * kRank;
        HWY_ALIGN float tail[kMaxLanes * kRank];
        if (count - p < lanes) {
          std::memset(tail, 0, sizeof(tail));
          std::memcpy(tail, src, sizeof(float) * (count - p) * kRank);
          src = tail;
        }
        PlanVector<M, P, kRank>(shape, align, stride, src, p, &plan);
      }
      // Channels in pairs (see BlendTile), but not on EMU128 / SCALAR: scalar code has no
      // vector registers to share, and the pairs grew the scalar wasm by 35 KB.
      constexpr bool kVectors = HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR;
      constexpr int kPair = M != Mode::kCubic && kVectors ? 2 : 1;
      int64_t c = 0;
      for (; c + kPair <= shape.c; c += kPair) {
        const float* xs[kPair];
        float* outs[kPair];
        for (int k = 0; k < kPair; ++k) {
          xs[k] = x_n + (c + k) * in_spatial;
          outs[k] = y_n + (c + k) * out_spatial + p0;
        }
        BlendTile<M, kRank, kPair>(plan, count, tap_offset, xs, outs);
      }
      if (c < shape.c) {  // a last odd channel
        const float* xs[1] = {x_n + c * in_spatial};
        float* outs[1] = {y_n + c * out_spatial + p0};
        BlendTile<M, kRank, 1>(plan, count, tap_offset, xs, outs);
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
      case Mode::kCubic: fn = PickPadding<3, Mode::kCubic>(padding); break;
    }
  }
  if (fn) fn(shape, align, x, grid, y);
}

int64_t TargetBits() { return HWY_TARGET; }

// float16 bits -> float32 for n values, exactly as HalfToFloat (half.h): normal values
// rebiased, subnormals as mant * 2^-24 (exact in float), Inf and NaN (payload kept).
void HalfsToFloats(const uint16_t* HWY_RESTRICT src, float* HWY_RESTRICT dst, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto bits = hn::BitCast(di, hn::PromoteTo(du, hn::LoadU(d16, src + i)));
    const auto sign = hn::BitCast(di, hn::ShiftLeft<16>(hn::BitCast(du, hn::And(bits, hn::Set(di, 0x8000)))));
    const auto exp = hn::And(hn::ShiftRight<10>(bits), hn::Set(di, 0x1F));
    const auto mant = hn::And(bits, hn::Set(di, 0x3FF));
    const auto normal = hn::Or(hn::ShiftLeft<23>(hn::Add(exp, hn::Set(di, 112))), hn::ShiftLeft<13>(mant));
    const auto special = hn::Or(hn::Set(di, 0x7F800000), hn::ShiftLeft<13>(mant));
    const auto subnormal = hn::BitCast(di, hn::Mul(hn::ConvertTo(df, mant), hn::Set(df, 5.9604644775390625e-8f)));
    const auto value = hn::IfThenElse(hn::Eq(exp, hn::Zero(di)), subnormal,
                                      hn::IfThenElse(hn::Eq(exp, hn::Set(di, 0x1F)), special, normal));
    hn::StoreU(hn::BitCast(df, hn::Or(value, sign)), df, dst + i);
  }
  for (; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

// float32 -> float16 bits for n values, exactly as FloatToHalf (half.h): round to nearest
// even, subnormals by rounding x * 2^24 to an integer, overflow to Inf, NaN stays NaN.
void FloatsToHalfs(const float* HWY_RESTRICT src, uint16_t* HWY_RESTRICT dst, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto u = hn::BitCast(du, hn::LoadU(df, src + i));
    const auto sign = hn::BitCast(di, hn::And(hn::ShiftRight<16>(u), hn::Set(du, 0x8000)));
    // Arithmetic in unsigned lanes (it wraps for lanes another branch takes); comparisons in
    // signed ones (every |x| bit pattern is below 2^31).
    const auto abs_u = hn::And(u, hn::Set(du, 0x7FFFFFFF));
    const auto abs = hn::BitCast(di, abs_u);
    const auto rounded = hn::Add(hn::Add(abs_u, hn::Set(du, 0xFFF)), hn::And(hn::ShiftRight<13>(abs_u), hn::Set(du, 1)));
    auto h = hn::BitCast(di, hn::ShiftRight<13>(hn::Sub(rounded, hn::Set(du, 0x38000000))));
    // x * 2^24 for the subnormal lanes; the others (NaN and huge values too) are capped at
    // 2^-14 first, so that no lane converts an out-of-range float to an integer.
    const auto small = hn::Min(abs, hn::Set(di, 0x38800000));
    const auto scaled = hn::Mul(hn::BitCast(df, small), hn::Set(df, 16777216.0f));
    h = hn::IfThenElse(hn::Lt(abs, hn::Set(di, 0x38800000)), hn::ConvertTo(di, hn::Round(scaled)), h);
    h = hn::IfThenElse(hn::Lt(abs, hn::Set(di, 0x477FF000)), h, hn::Set(di, 0x7C00));
    const auto nan = hn::IfThenElseZero(hn::Gt(abs, hn::Set(di, 0x7F800000)), hn::Set(di, 0x200));
    h = hn::IfThenElse(hn::Lt(abs, hn::Set(di, 0x7F800000)), h, hn::Or(hn::Set(di, 0x7C00), nan));
    hn::StoreU(hn::DemoteTo(d16, hn::Or(h, sign)), d16, dst + i);
  }
  for (; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(GridSampleF32);
HWY_EXPORT(TargetBits);
HWY_EXPORT(HalfsToFloats);
HWY_EXPORT(FloatsToHalfs);

namespace {

void RunF32(const NdShape& shape, const GridSampleOptions& o, const float* x, const float* grid,
            float* y) {
  GRIDSAMPLE_DISPATCH(GridSampleF32)(shape, o.mode, o.padding, o.align_corners, x, grid, y);
}

// A float scratch buffer, or null when memory is short (the caller falls back).
std::unique_ptr<float[]> Scratch(int64_t count) {
  return std::unique_ptr<float[]>(new (std::nothrow) float[static_cast<size_t>(count)]);
}

// Types whose values the reference computes in float (DTypeTraits::Compute): float16,
// bfloat16 and the 8/16-bit integers run the float32 kernels on X converted to float32 one
// batch item at a time, and store the float results as the reference does; a float64,
// float16 or bfloat16 grid is converted to the float coordinates the reference takes from it.
// Same plans, same arithmetic, so the same results as the float32 path.
bool RunConverted(const NdShape& shape, const TensorView& x, const TensorView& grid,
                  const MutableTensorView& y, const GridSampleOptions& o) {
  const int64_t in_spatial = static_cast<int64_t>(shape.in[0]) * shape.in[1] *
                             (shape.rank == 3 ? shape.in[2] : 1);
  const int64_t grid_count = shape.n * shape.out_spatial * shape.rank;
  std::unique_ptr<float[]> grid_f32;
  const float* g = static_cast<const float*>(grid.data);
  if (grid.dtype != DType::kFloat32) {
    grid_f32 = Scratch(grid_count);
    if (!grid_f32) return false;
    const bool reduce = o.padding == Padding::kReflection;
    VisitDType(grid.dtype, [&](auto tag) {
      using TG = typename decltype(tag)::type;
      const TG* src = static_cast<const TG*>(grid.data);
      for (int64_t i = 0; i < grid_count; ++i) {
        grid_f32[i] = reference::CoordinateAsFloat(
            static_cast<double>(DTypeTraits<TG>::Load(src + i)), reduce);
      }
    }, /*floats_only=*/true);
    g = grid_f32.get();
  }
  if (x.dtype == DType::kFloat32) {
    RunF32(shape, o, static_cast<const float*>(x.data), g, static_cast<float*>(y.data));
    return true;
  }
  const int64_t x_count = shape.c * in_spatial, y_count = shape.c * shape.out_spatial;
  std::unique_ptr<float[]> x_f32 = Scratch(x_count), y_f32 = Scratch(y_count);
  if (!x_f32 || !y_f32) return false;
  NdShape one = shape;
  one.n = 1;
  VisitDType(x.dtype, [&](auto tag) {
    using TX = typename decltype(tag)::type;
    const TX* src = static_cast<const TX*>(x.data);
    TX* dst = static_cast<TX*>(y.data);
    for (int64_t n = 0; n < shape.n; ++n) {
      if constexpr (std::is_same_v<TX, Float16>) {  // the same conversions, vectorised
        GRIDSAMPLE_DISPATCH(HalfsToFloats)(&src[n * x_count].bits, x_f32.get(), x_count);
      } else {
        for (int64_t i = 0; i < x_count; ++i) x_f32[i] = DTypeTraits<TX>::Load(src + n * x_count + i);
      }
      RunF32(one, o, x_f32.get(), g + n * shape.out_spatial * shape.rank, y_f32.get());
      if constexpr (std::is_same_v<TX, Float16>) {
        GRIDSAMPLE_DISPATCH(FloatsToHalfs)(y_f32.get(), &dst[n * y_count].bits, y_count);
      } else {
        for (int64_t i = 0; i < y_count; ++i) dst[n * y_count + i] = DTypeTraits<TX>::Store(y_f32[i]);
      }
    }
  });
  return true;
}

}  // namespace

bool GridSample(const GridSampleGeometry& geo, const TensorView& x, const TensorView& grid,
                const MutableTensorView& y, const GridSampleOptions& options) {
  // X types computed in float (float64, int32 and uint32 are computed in double).
  const bool float_compute = x.dtype != DType::kFloat64 && x.dtype != DType::kInt32 &&
                             x.dtype != DType::kUint32;
  if (!float_compute) return false;
  if (geo.rank != 2 && geo.rank != 3) return false;
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
  if (x.dtype != DType::kFloat32 || grid.dtype != DType::kFloat32) {
    return RunConverted(shape, x, grid, y, options);
  }
  RunF32(shape, options, static_cast<const float*>(x.data), static_cast<const float*>(grid.data),
         static_cast<float*>(y.data));
  return true;
}

const char* TargetName() { return hwy::TargetName(GRIDSAMPLE_DISPATCH(TargetBits)()); }

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
