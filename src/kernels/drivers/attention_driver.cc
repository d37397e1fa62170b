// Multi-scale deformable attention on the fast path: per query and head, a plan of every
// sampling point's taps (the planner's bilinear rule, vectorised over points, or the discrete
// rule's one pixel), then the head's D channels blended from it, vectors along D (the value's own
// [N, S, M, D] layout); queries spread over threads; equal to the reference bit for bit. A
// float16 value is read tap by tap into float32 lanes and its sums stored once, rounded, at the
// end; float16 or bfloat16 locations and weights are converted chunk by chunk.
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

#include "drivers/fast.h"
#include "planner/limits.h"
#include "rules/discrete_tap.h"
#include "rules/half.h"
#include "threads/parallel.h"

#ifndef GRIDSAMPLE_DRIVERS_ATTENTION_ARGS_
#define GRIDSAMPLE_DRIVERS_ATTENTION_ARGS_
namespace gridsample {
namespace fast {
// A validated problem as the kernel sees it (value and y float32 or float16 bits, locations and
// weights of any float dtype), with its levels laid out per point: entry
// j of the level tables belongs to point j of a head's sum(P_l) points (level l's P_l points
// after the levels before it), padded with kAttentionPad entries of a 1x1 level so that whole
// vectors may be read.
struct AttentionArgs {
  const void* value;  // float32, or float16 bits (value_dtype); y the same
  const void* locations;
  const void* weights;
  void* y;
  DType value_dtype, locations_dtype, weights_dtype;
  int64_t n, s, heads, channels, queries, points;  // points: sum(P_l) per query and head
  const float* level_w;                            // W_l, H_l as floats
  const float* level_h;
  const int32_t* level_wi;  // W_l, H_l
  const int32_t* level_hi;
  const int32_t* level_start;  // first row of S (S < 2^31 on this path)
  Threads threads;
  DeformableSampling sampling;
};
constexpr int64_t kAttentionPad = 64;  // at least the most float lanes of any target
// Most channels of a float16 value on the fast path: its float32 sums stay on the stack.
constexpr int64_t kAttentionHalfChannels = 512;
}  // namespace fast
}  // namespace gridsample
#endif

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "drivers/attention_driver.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "planner/axis_plan-inl.h"
#include "planner/lanes-inl.h"
#include "drivers/half_lanes-inl.h"
#include "rules/axis_line.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether the target has 32 vector registers (AVX-512, NEON, SVE): 8 vectors of sums and 8 of
// samples then stay in registers.
#if HWY_ARCH_ARM || (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3)
constexpr bool kManyRegisters = true;
#else
constexpr bool kManyRegisters = false;
#endif

// Points planned at once (their taps stay in L1 while every channel is blended from them).
constexpr int kAttentionChunk = 64;

// The taps of a chunk of points, tap by tap (row by row, as the reference sums them), point by
// point: the tap's row of S (-1 where zero padding drops it, or the location is not finite) and
// its weight wx * wy.
struct ChunkTaps {
  HWY_ALIGN int32_t pixel[4][kAttentionChunk];
  HWY_ALIGN float weight[4][kAttentionChunk];
};

// Plans points [j0, j0 + count) of one query and head: the unit location's pixel
// (rules/axis_line.h), clamped far outside as the planner clamps, the planner's bilinear taps
// and weights (AxisTaps), then zero padding and the non-finite rule per tap, a vector of points
// at a time. `loc` holds the chunk's (x, y) pairs.
HWY_INLINE void PlanPoints(const AttentionArgs& a, const float* HWY_RESTRICT loc, int64_t j0,
                           int count, ChunkTaps* HWY_RESTRICT taps) {
  const DF d;
  const DI di;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const VF half = hn::Set(d, 0.5f);
  const VF far = hn::Set(d, kFarPixels<float>);
  const VI zero = hn::Zero(di), one = hn::Set(di, 1), minus_one = hn::Set(di, -1);
  HWY_ALIGN float padded[2 * kMaxLanes] = {};
  for (int p = 0; p < count; p += lanes) {
    const int64_t j = j0 + p;
    const int live = count - p < lanes ? count - p : lanes;
    const float* pairs = loc + 2 * p;
    if (live < lanes) {  // the last points: never read past the locations
      for (int k = 0; k < 2 * live; ++k) padded[k] = pairs[k];
      pairs = padded;
    }
    VF u, v;
    hn::LoadInterleaved2(d, pairs, u, v);
    const VF w = hn::LoadU(d, a.level_w + j), h = hn::LoadU(d, a.level_h + j);
    const auto ok = hn::And(hn::IsFinite(u), hn::IsFinite(v));
    // Pixel positions, kept defined where the location is not finite (those taps are dropped).
    VF x = hn::IfThenElseZero(ok, GRIDSAMPLE_PIXEL_OF_UNIT(u, w, half));
    VF y = hn::IfThenElseZero(ok, GRIDSAMPLE_PIXEL_OF_UNIT(v, h, half));
    x = MinNoNaN(MaxNoNaN(x, hn::Neg(far)), hn::Add(w, far));
    y = MinNoNaN(MaxNoNaN(y, hn::Neg(far)), hn::Add(h, far));
    VI ix, iy;
    VF tx[2], ty[2];
    AxisTaps<Mode::kLinear>(d, x, &ix, tx);
    AxisTaps<Mode::kLinear>(d, y, &iy, ty);
    const VI wi = hn::LoadU(di, a.level_wi + j), hi = hn::LoadU(di, a.level_hi + j);
    const VI start = hn::LoadU(di, a.level_start + j);
    const auto finite = hn::RebindMask(di, ok);
    // Rows of S from the taps clamped into their level (start + y * W + x < S < 2^31: no
    // overflow in int32); a tap outside is dropped all the same.
    const VI last_x = hn::Sub(wi, one), last_y = hn::Sub(hi, one);
    for (int ky = 0; ky < 2; ++ky) {
      const VI yi = hn::Add(iy, ky ? one : zero);
      const auto row_in = hn::And(finite, hn::And(hn::Gt(yi, minus_one), hn::Lt(yi, hi)));
      const VI row = hn::Add(start, hn::Mul(hn::Min(hn::Max(yi, zero), last_y), wi));
      for (int kx = 0; kx < 2; ++kx) {
        const VI xi = hn::Add(ix, kx ? one : zero);
        const auto inside = hn::And(row_in, hn::And(hn::Gt(xi, minus_one), hn::Lt(xi, wi)));
        const VI pixel = hn::Add(row, hn::Min(hn::Max(xi, zero), last_x));
        const int t = 2 * ky + kx;
        hn::StoreU(hn::IfThenElse(inside, pixel, minus_one), di, taps->pixel[t] + p);
        hn::StoreU(hn::Mul(tx[kx], ty[ky]), d, taps->weight[t] + p);
      }
    }
  }
}

// Lanes(d) channels of a tap from `p`: float32 as they are, float16 bits converted exactly.
template <typename T>
HWY_INLINE VF LoadTap(DF d, const T* HWY_RESTRICT p) {
  if constexpr (std::is_same_v<T, float>) {
    return hn::LoadU(d, p);
  } else {
    return HalfLanesToFloats(d, p);
  }
}

// One channel of a tap, as LoadTap.
template <typename T>
HWY_INLINE float TapValue(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return HalfToFloat(v);
  }
}

// Channels [c, c + kV * lanes) of one query and head over `count` planned points: per point its
// sample (taps added in order from +0, as the reference), times its attention weight, added to
// the sum, which starts at 0 (first chunk of points) or at what the previous chunks stored. The
// sums stay in registers (kHeld) or in `out` (L1), which leaves the registers to the samples
// where 2 * kV vectors would not fit (16 registers: SSE4, AVX2, wasm; kV = 8).
template <int kV, bool kHeld, typename T>
HWY_INLINE void BlendVectors(const ChunkTaps& taps, const float* HWY_RESTRICT aw, int count,
                             const T* HWY_RESTRICT head, int64_t row, int64_t c, bool first,
                             float* HWY_RESTRICT out) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  float* HWY_RESTRICT sum = out + c;
  VF acc[kV];
  for (int k = 0; k < kV; ++k) {
    if constexpr (kHeld) {
      acc[k] = first ? hn::Zero(d) : hn::LoadU(d, sum + k * lanes);
    } else if (first) {
      hn::StoreU(hn::Zero(d), d, sum + k * lanes);
    }
  }
  for (int j = 0; j < count; ++j) {
    VF s[kV];
    for (int k = 0; k < kV; ++k) s[k] = hn::Zero(d);
    for (int t = 0; t < 4; ++t) {
      if (taps.pixel[t][j] < 0) continue;
      const T* p = head + taps.pixel[t][j] * row + c;
      const VF w = hn::Set(d, taps.weight[t][j]);
      for (int k = 0; k < kV; ++k) s[k] = hn::Add(s[k], hn::Mul(w, LoadTap(d, p + k * lanes)));
    }
    const VF a = hn::Set(d, aw[j]);
    for (int k = 0; k < kV; ++k) {
      if constexpr (kHeld) {
        acc[k] = hn::Add(acc[k], hn::Mul(a, s[k]));
      } else {
        hn::StoreU(hn::Add(hn::LoadU(d, sum + k * lanes), hn::Mul(a, s[k])), d, sum + k * lanes);
      }
    }
  }
  if constexpr (kHeld) {
    for (int k = 0; k < kV; ++k) hn::StoreU(acc[k], d, sum + k * lanes);
  }
}

// The channels left after whole vectors, one at a time with the same operations.
template <typename T>
HWY_INLINE void BlendChannel(const ChunkTaps& taps, const float* HWY_RESTRICT aw, int count,
                             const T* HWY_RESTRICT head, int64_t row, int64_t c, bool first,
                             float* HWY_RESTRICT out) {
  float acc = first ? 0.0f : out[c];
  for (int j = 0; j < count; ++j) {
    float s = 0.0f;
    for (int t = 0; t < 4; ++t) {
      const int64_t pixel = taps.pixel[t][j];
      if (pixel >= 0) s += taps.weight[t][j] * TapValue(head[pixel * row + c]);
    }
    acc += aw[j] * s;
  }
  out[c] = acc;
}

// Plans points [j0, j0 + count) by the discrete rule (rules/discrete_tap.h), one point at a
// time: the one pixel as a tap of weight 1 (the reference adds its value to +0 alike), the
// other three dropped; no tap where the location is not finite.
HWY_INLINE void PlanDiscrete(const AttentionArgs& a, const float* HWY_RESTRICT loc, int64_t j0,
                             int count, ChunkTaps* HWY_RESTRICT taps) {
  for (int k = 0; k < count; ++k) {
    const int64_t j = j0 + k, wi = a.level_wi[j], hi = a.level_hi[j];
    int64_t col = 0, line = 0;
    const bool read = DiscreteTap(loc[2 * k], loc[2 * k + 1], hi, wi, &col, &line);
    taps->pixel[0][k] = read ? static_cast<int32_t>(a.level_start[j] + line * wi + col) : -1;
    taps->weight[0][k] = 1.0f;
    for (int t = 1; t < 4; ++t) {
      taps->pixel[t][k] = -1;
      taps->weight[t][k] = 0.0f;
    }
  }
}

// `count` values of `dtype` from element `first` of `data` as float32: in place where they are
// float32, else converted into `buffer`.
HWY_INLINE const float* ChunkFloats(const void* data, DType dtype, int64_t first, int64_t count,
                                    float* buffer) {
  if (dtype == DType::kFloat32) return static_cast<const float*>(data) + first;
  LoadFloats(dtype, static_cast<const char*>(data) + first * 2, count, buffer);  // 16-bit types
  return buffer;
}

// One query and head: its points chunk by chunk, planned, then every channel blended; T the
// value's element (float, or uint16_t float16 bits, whose sums are stored rounded at the end).
template <typename T>
HWY_INLINE void QueryHead(const AttentionArgs& a, int64_t unit, int64_t m) {
  const int64_t row = a.heads * a.channels;
  const int64_t group = unit * a.heads + m;  // (n, q, m) flattened
  const T* head = static_cast<const T*>(a.value) + (unit / a.queries) * a.s * row + m * a.channels;
  constexpr bool kFloat = std::is_same_v<T, float>;
  HWY_ALIGN float sums[kFloat ? 1 : kAttentionHalfChannels];
  float* out = kFloat ? static_cast<float*>(a.y) + group * a.channels : sums;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(DF()));
  ChunkTaps taps;
  float loc_buffer[2 * kAttentionChunk], aw_buffer[kAttentionChunk];
  if (a.points == 0) {
    for (int64_t c = 0; c < a.channels; ++c) out[c] = 0.0f;
  }
  for (int64_t j0 = 0; j0 < a.points; j0 += kAttentionChunk) {
    const int count =
        static_cast<int>(a.points - j0 < kAttentionChunk ? a.points - j0 : kAttentionChunk);
    const int64_t first_point = group * a.points + j0;
    const float* loc =
        ChunkFloats(a.locations, a.locations_dtype, 2 * first_point, 2 * count, loc_buffer);
    const float* aw = ChunkFloats(a.weights, a.weights_dtype, first_point, count, aw_buffer);
    if (a.sampling == DeformableSampling::kDiscrete) {
      PlanDiscrete(a, loc, j0, count, &taps);
    } else {
      PlanPoints(a, loc, j0, count, &taps);
    }
    const bool first = j0 == 0;
    // As many vectors per pass over the taps as registers allow: 8 (D = 32 in 4 lanes), 4, 2, 1.
    int64_t c = 0;
    for (; c + 8 * lanes <= a.channels; c += 8 * lanes) {
      BlendVectors<8, kManyRegisters>(taps, aw, count, head, row, c, first, out);
    }
    if (c + 4 * lanes <= a.channels) {
      BlendVectors<4, true>(taps, aw, count, head, row, c, first, out);
      c += 4 * lanes;
    }
    if (c + 2 * lanes <= a.channels) {
      BlendVectors<2, true>(taps, aw, count, head, row, c, first, out);
      c += 2 * lanes;
    }
    if (c + lanes <= a.channels) {
      BlendVectors<1, true>(taps, aw, count, head, row, c, first, out);
      c += lanes;
    }
    for (; c < a.channels; ++c) BlendChannel(taps, aw, count, head, row, c, first, out);
  }
  if (!kFloat) FloatsToHalfs(sums, static_cast<uint16_t*>(a.y) + group * a.channels, a.channels);
}

void AttentionKernel(const AttentionArgs& a) {
  const int64_t cost = a.heads * a.points * PixelCost(a.channels, 4);
  ParallelUnits(a.threads, a.n * a.queries, cost, [&a](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      for (int64_t m = 0; m < a.heads; ++m) {
        if (a.value_dtype == DType::kFloat32) {
          QueryHead<float>(a, unit, m);
        } else {
          QueryHead<uint16_t>(a, unit, m);
        }
      }
    }
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(AttentionKernel);

bool Covers(const DeformableAttentionProblem& p) {
  const DeformableAttentionGeometry& g = p.geometry;
  // float32 or float16 values (a float16 head's sums on the stack); locations and weights of
  // any of the float dtypes validation takes.
  if (p.value.dtype != DType::kFloat32 &&
      (p.value.dtype != DType::kFloat16 || g.channels > kAttentionHalfChannels)) {
    return false;
  }
  for (int64_t l = 0; l < g.levels; ++l) {
    if (g.shapes[2 * l] > kMaxAxis || g.shapes[2 * l + 1] > kMaxAxis) return false;
  }
  // Rows of S as int32 (validation made every level end within S).
  return g.s < (int64_t{1} << 31);
}

bool Try(const DeformableAttentionProblem& p) {
  if (!Covers(p)) return false;
  const DeformableAttentionGeometry& g = p.geometry;
  if (g.Empty()) return true;
  // The level tables, one entry per point of a query and head (padded with a 1x1 level); when
  // memory is short the reference runs instead.
  const int64_t points = g.points;
  const int64_t size = points + kAttentionPad;
  std::unique_ptr<float[]> floats(new (std::nothrow) float[static_cast<size_t>(2 * size)]);
  std::unique_ptr<int32_t[]> ints(new (std::nothrow) int32_t[static_cast<size_t>(3 * size)]);
  if (!floats || !ints) return false;
  float *w = floats.get(), *h = w + size;
  int32_t *wi = ints.get(), *hi = wi + size, *start = hi + size;
  int64_t l = 0, level_end = g.LevelPoints(0);  // level l's points end before level_end
  for (int64_t j = 0; j < size; ++j) {
    const bool live = j < points;
    while (live && j >= level_end) level_end += g.LevelPoints(++l);
    hi[j] = live ? static_cast<int32_t>(g.shapes[2 * l]) : 1;
    wi[j] = live ? static_cast<int32_t>(g.shapes[2 * l + 1]) : 1;
    start[j] = live ? static_cast<int32_t>(g.starts[l]) : 0;
    h[j] = static_cast<float>(hi[j]);
    w[j] = static_cast<float>(wi[j]);
  }
  const AttentionArgs args{p.value.data,
                           p.locations.data,
                           p.weights.data,
                           p.y.data,
                           p.value.dtype,
                           p.locations.dtype,
                           p.weights.dtype,
                           g.n,
                           g.s,
                           g.heads,
                           g.channels,
                           g.queries,
                           points,
                           w,
                           h,
                           wi,
                           hi,
                           start,
                           p.threads,
                           p.sampling};
  GRIDSAMPLE_DISPATCH(AttentionKernel)(args);
  return true;
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
