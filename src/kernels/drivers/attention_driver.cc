// Multi-scale deformable attention on the fast path: per query and head, a plan of every
// sampling point's taps (the planner's bilinear rule, vectorised over points, or the discrete
// rule's one pixel), then the head's D channels blended from it, vectors along D (the value's own
// [N, S, M, D] layout, or each head's rows gathered into one S x D plane first, where
// attention_args.h's rule says it pays); queries spread over threads (whole heads where each
// thread gathers into a plane of its own); equal to the reference bit for bit. A float16 value
// is read tap by tap into float32 lanes and its sums stored once, rounded, at the end; float16
// or bfloat16 locations and weights are converted chunk by chunk.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

#include "drivers/attention_args.h"
#include "drivers/attention_planes.h"
#include "drivers/fast.h"
#include "planner/limits.h"
#include "rules/half.h"
#include "threads/parallel.h"

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "drivers/attention_driver.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "planner/lanes-inl.h"
#include "drivers/attention_plans-inl.h"
#include "drivers/half_lanes-inl.h"
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

// Whether a pass over a chunk's taps blends up to 8 vectors of channels (their sums in L1 on
// targets of 16 registers) rather than 4 held in registers. In wasm two passes of 4 took the
// same calls 0.75-0.99x the time (V8, D = 32: the decoder's block; the 800x1333 encoder's with
// uniform locations 0.76-0.86x, 640x640 0.93-1.0x; bench/README.md); natively on SSE4 1.04-1.16x.
constexpr bool kEightVectors = HWY_TARGET != HWY_WASM;

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
// where 2 * kV vectors would not fit (16 registers: SSE4, AVX2; kV = 8).
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
// `head`: the head's first row of values, `row` elements apart.
template <typename T>
HWY_INLINE void QueryHead(const AttentionArgs& a, int64_t unit, int64_t m, const T* head,
                          int64_t row) {
  const int64_t group = unit * a.heads + m;  // (n, q, m) flattened
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
    // As many vectors per pass over the taps as registers allow: 8 (D = 32 in 4 lanes), 4, 2, 1
    // (in wasm at most 4: see kEightVectors).
    int64_t c = 0;
    if constexpr (kEightVectors) {
      for (; c + 8 * lanes <= a.channels; c += 8 * lanes) {
        BlendVectors<8, kManyRegisters>(taps, aw, count, head, row, c, first, out);
      }
    }
    for (; c + 4 * lanes <= a.channels; c += 4 * lanes) {
      BlendVectors<4, true>(taps, aw, count, head, row, c, first, out);
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

template <typename T>
void AttentionOf(const AttentionArgs& a) {
  const int64_t query_cost = a.points * PixelCost(a.channels, 4);  // one query of one head
  const int64_t row = a.heads * a.channels;
  const T* value = static_cast<const T*>(a.value);
  if (a.plane == nullptr) {
    ParallelUnits(a.threads, a.n * a.queries, a.heads * query_cost,
                  [&](int64_t begin, int64_t end) {
                    for (int64_t unit = begin; unit < end; ++unit) {
                      const T* item = value + (unit / a.queries) * a.s * row;
                      for (int64_t m = 0; m < a.heads; ++m) {
                        QueryHead<T>(a, unit, m, item + m * a.channels, row);
                      }
                    }
                  });
    return;
  }
  // Each head's rows (D values every M * D) gathered into a plane, whose S * D values stay in
  // the caches where the value's S * M * D would not, then every query of that head.
  T* planes = static_cast<T*>(a.plane);
  if (a.plane_slots > 1) {
    // Whole heads per piece, into a plane taken for the piece (none free, as a host's
    // parallel-for running more pieces at once than its count could make it: read in place).
    std::atomic<uint32_t> idle{(uint32_t{1} << a.plane_slots) - 1};
    const int64_t head_cost = a.queries * query_cost + a.s * a.channels;
    ParallelUnits(a.threads, a.n * a.heads, head_cost, [&](int64_t begin, int64_t end) {
      const int slot = TakePlane(&idle);
      T* plane = slot < 0 ? nullptr : planes + slot * a.s * a.channels;
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t n = unit / a.heads, m = unit % a.heads;
        const T* head = value + n * a.s * row + m * a.channels;
        if (plane != nullptr) GatherRows(head, row, a.channels, 0, a.s, plane);
        for (int64_t q = 0; q < a.queries; ++q) {
          QueryHead<T>(a, n * a.queries + q, m, plane != nullptr ? plane : head,
                       plane != nullptr ? a.channels : row);
        }
      }
      if (slot >= 0) idle.fetch_or(uint32_t{1} << slot, std::memory_order_release);
    });
    return;
  }
  T* plane = planes;
  for (int64_t n = 0; n < a.n; ++n) {
    for (int64_t m = 0; m < a.heads; ++m) {
      const T* head = value + n * a.s * row + m * a.channels;
      ParallelUnits(a.threads, a.s, a.channels, [&](int64_t begin, int64_t end) {
        GatherRows(head, row, a.channels, begin, end, plane);
      });
      ParallelUnits(a.threads, a.queries, query_cost, [&](int64_t begin, int64_t end) {
        for (int64_t q = begin; q < end; ++q) {
          QueryHead<T>(a, n * a.queries + q, m, plane, a.channels);
        }
      });
    }
  }
}

void AttentionKernel(const AttentionArgs& a) {
  if (a.value_dtype == DType::kFloat32) {
    AttentionOf<float>(a);
  } else {
    AttentionOf<uint16_t>(a);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(AttentionKernel);

namespace {
std::atomic<AttentionGather> gather_for_test{AttentionGather::kAuto};
}  // namespace

void SetAttentionGatherForTest(AttentionGather gather) {
  gather_for_test.store(gather, std::memory_order_relaxed);
}

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

namespace {

// Whether consecutive queries sample kAttentionGatherSpread apart on average (attention_args.h).
bool QueriesSampleFarApart(const DeformableAttentionProblem& p) {
  const DeformableAttentionGeometry& g = p.geometry;
  const int64_t pairs = g.points == 0 ? 0 : g.queries - 1 < 64 ? g.queries - 1 : 64;
  const size_t size = DTypeSize(p.locations.dtype);
  const auto* loc = static_cast<const unsigned char*>(p.locations.data);
  float distance = 0.0f;
  int64_t counted = 0;
  for (int64_t k = 0; k < pairs; ++k) {
    const int64_t q = k * (g.queries - 1) / pairs;  // item 0's queries q and q + 1
    float a[2], b[2];
    LoadFloats(p.locations.dtype, loc + q * g.heads * g.points * 2 * size, 2, a);
    LoadFloats(p.locations.dtype, loc + (q + 1) * g.heads * g.points * 2 * size, 2, b);
    const float d = std::fabs(a[0] - b[0]) + std::fabs(a[1] - b[1]);
    if (std::isfinite(d)) {
      distance += d;
      ++counted;
    }
  }
  return counted > 0 && distance >= kAttentionGatherSpread * static_cast<float>(counted);
}

}  // namespace

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
  // A head's plane where the rule says so and memory allows (else its rows are read in place):
  // one per thread where each takes whole heads (attention_args.h), else one.
  const int64_t plane_bytes = g.s * g.channels * static_cast<int64_t>(DTypeSize(p.value.dtype));
  const AttentionGather gather = gather_for_test.load(std::memory_order_relaxed);
  std::unique_ptr<unsigned char[]> plane;
  const int threads = GRIDSAMPLE_HAS_THREADS ? ThreadCount(p.threads) : 1;
  int slots = threads > 1 && 2 * threads <= g.heads && threads <= 32 ? threads : 1;
  if (gather == AttentionGather::kAlways ||
      (gather == AttentionGather::kAuto && g.queries * points >= kAttentionGatherReads * g.s &&
       plane_bytes * g.heads >= kAttentionGatherBytes && QueriesSampleFarApart(p))) {
    plane.reset(new (std::nothrow) unsigned char[static_cast<size_t>(plane_bytes * slots)]);
    if (plane == nullptr && slots > 1) {  // short of memory: the one shared plane
      slots = 1;
      plane.reset(new (std::nothrow) unsigned char[static_cast<size_t>(plane_bytes)]);
    }
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
                           p.sampling,
                           plane.get(),
                           slots};
  GRIDSAMPLE_DISPATCH(AttentionKernel)(args);
  return true;
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
