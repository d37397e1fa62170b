// The blends on their own, for tests: BlendTile (NCHW planes) and BlendPixels (channels-last
// pixels) on the dispatched target for plans that the test writes, so that each blend can be
// checked against a plain weighted sum on every target without the planner.
#include <cstdint>
#include <cstring>

#include "probes/probes.h"

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "probes/blend_probe.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "blends/interleaved-inl.h"
#include "blends/planar-inl.h"
#include "planner/tile_plan-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The test's plans of pixels [0, count) (window offset[p], tap weights weight[p * kWeights + t])
// as a tile's. The rest of the tile, which the blends read as lanes of a partial last vector,
// gets window 0 and weight 0, as if planned from zero-padded coordinates.
template <Mode M, int kRank>
void FillPlan(int count, const int32_t* offset, const float* weight, TilePlan<M, kRank>* plan) {
  constexpr int kW = TilePlan<M, kRank>::kWeights;
  for (int p = 0; p < TilePlan<M, kRank>::kPixels; ++p) {
    const bool given = p < count;
    plan->offset[p] = given ? offset[p] : 0;
    for (int t = 0; t < kW; ++t) plan->weight[t][p] = given ? weight[p * kW + t] : 0.0f;
  }
}

template <Mode M, int kRank>
void TileOf(int* pixels, int* lanes) {
  *pixels = TilePlan<M, kRank>::kPixels;
  *lanes = static_cast<int>(hn::Lanes(DB()));
}

void ProbeBlendTileOnTarget(Mode mode, int rank, int* pixels, int* lanes) {
  switch (mode) {
    case Mode::kLinear:
      return rank == 2 ? TileOf<Mode::kLinear, 2>(pixels, lanes)
                       : TileOf<Mode::kLinear, 3>(pixels, lanes);
    case Mode::kNearest:
      return rank == 2 ? TileOf<Mode::kNearest, 2>(pixels, lanes)
                       : TileOf<Mode::kNearest, 3>(pixels, lanes);
    case Mode::kCubic:
      return rank == 2 ? TileOf<Mode::kCubic, 2>(pixels, lanes)
                       : TileOf<Mode::kCubic, 3>(pixels, lanes);
  }
}

// The channels of a tile blended as the NCHW driver schedules them (grid_sample_planar.cc,
// BlendChannels): TapOffsets from the planes' strides, kChannelsPerPass channels at a time, a
// last odd channel alone.
template <Mode M, int kRank>
bool Planar(const int32_t* size, int channels, const float* const* x, int count,
            const int32_t* offset, const float* weight, float* const* out) {
  if (count < 1 || count > TilePlan<M, kRank>::kPixels) return false;
  TilePlan<M, kRank> plan;
  FillPlan<M, kRank>(count, offset, weight, &plan);
  int32_t stride[kRank];
  stride[kRank - 1] = 1;
  for (int a = kRank - 2; a >= 0; --a) stride[a] = stride[a + 1] * size[a + 1];
  int32_t tap_offset[TilePlan<M, kRank>::kWeights];
  TapOffsets<M, kRank>(stride, tap_offset);
  constexpr int kPair = kChannelsPerPass<M>;
  int c = 0;
  for (; c + kPair <= channels; c += kPair) {
    BlendTile<M, kRank, kPair>(plan, count, tap_offset, x + c, out + c);
  }
  if (c < channels) BlendTile<M, kRank, 1>(plan, count, tap_offset, x + c, out + c);
  return true;
}

template <Mode M>
bool PlanarMode(int rank, const int32_t* size, int channels, const float* const* x, int count,
                const int32_t* offset, const float* weight, float* const* out) {
  if (rank == 2) return Planar<M, 2>(size, channels, x, count, offset, weight, out);
  if (rank == 3) return Planar<M, 3>(size, channels, x, count, offset, weight, out);
  return false;
}

bool ProbeBlendPlanarOnTarget(Mode mode, int rank, const int32_t* size, int channels,
                              const float* const* x, int count, const int32_t* offset,
                              const float* weight, float* const* out) {
  switch (mode) {
    case Mode::kLinear:
      return PlanarMode<Mode::kLinear>(rank, size, channels, x, count, offset, weight, out);
    case Mode::kNearest:
      return PlanarMode<Mode::kNearest>(rank, size, channels, x, count, offset, weight, out);
    case Mode::kCubic:
      return PlanarMode<Mode::kCubic>(rank, size, channels, x, count, offset, weight, out);
  }
  return false;
}

#if HWY_TARGET != HWY_SCALAR

template <Mode M, typename T, int C>
void Interleaved(const TilePlan<M, 2>& plan, const void* x, int32_t row, const void* tail,
                 int32_t end_window, int begin, int end, int exact_end, void* out) {
  const Image<T> im{
      static_cast<const T*>(x), static_cast<const T*>(tail), row, end_window, nullptr, nullptr};
  BlendPixels<T, C, M>(plan, im, begin, end, exact_end, static_cast<T*>(out));
}

template <Mode M>
bool InterleavedMode(bool uint8, int channels, const void* x, int32_t row, const void* tail,
                     int32_t end_window, int count, const int32_t* offset, const float* weight,
                     int begin, int end, int exact_end, void* out) {
  if (count < 1 || count > TilePlan<M, 2>::kPixels) return false;
  if (begin < 0 || begin > end || end > count) return false;
  TilePlan<M, 2> plan;
  FillPlan<M, 2>(count, offset, weight, &plan);
  switch (channels + (uint8 ? 4 : 0)) {
    case 1:
      Interleaved<M, float, 1>(plan, x, row, tail, end_window, begin, end, exact_end, out);
      break;
    case 2:
      Interleaved<M, float, 2>(plan, x, row, tail, end_window, begin, end, exact_end, out);
      break;
    case 3:
      Interleaved<M, float, 3>(plan, x, row, tail, end_window, begin, end, exact_end, out);
      break;
    case 4:
      Interleaved<M, float, 4>(plan, x, row, tail, end_window, begin, end, exact_end, out);
      break;
    case 5:
      Interleaved<M, uint8_t, 1>(plan, x, row, tail, end_window, begin, end, exact_end, out);
      break;
    case 6:
      Interleaved<M, uint8_t, 2>(plan, x, row, tail, end_window, begin, end, exact_end, out);
      break;
    case 7:
      Interleaved<M, uint8_t, 3>(plan, x, row, tail, end_window, begin, end, exact_end, out);
      break;
    case 8:
      Interleaved<M, uint8_t, 4>(plan, x, row, tail, end_window, begin, end, exact_end, out);
      break;
    default: return false;
  }
  return true;
}

bool ProbeBlendInterleavedOnTarget(Mode mode, bool uint8, int channels, const void* x, int32_t row,
                                   const void* tail, int32_t end_window, int count,
                                   const int32_t* offset, const float* weight, int begin, int end,
                                   int exact_end, void* out) {
  switch (mode) {
    case Mode::kLinear:
      return InterleavedMode<Mode::kLinear>(uint8, channels, x, row, tail, end_window, count,
                                            offset, weight, begin, end, exact_end, out);
    case Mode::kNearest:
      return InterleavedMode<Mode::kNearest>(uint8, channels, x, row, tail, end_window, count,
                                             offset, weight, begin, end, exact_end, out);
    case Mode::kCubic:
      return InterleavedMode<Mode::kCubic>(uint8, channels, x, row, tail, end_window, count, offset,
                                           weight, begin, end, exact_end, out);
  }
  return false;
}

#else  // HWY_TARGET == HWY_SCALAR: no channels-last kernels (TargetHasChannelsLast)

bool ProbeBlendInterleavedOnTarget(Mode, bool, int, const void*, int32_t, const void*, int32_t, int,
                                   const int32_t*, const float*, int, int, int, void*) {
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

HWY_EXPORT(ProbeBlendTileOnTarget);
HWY_EXPORT(ProbeBlendPlanarOnTarget);
HWY_EXPORT(ProbeBlendInterleavedOnTarget);

void ProbeBlendTile(Mode mode, int rank, int* pixels, int* lanes) {
  GRIDSAMPLE_DISPATCH(ProbeBlendTileOnTarget)(mode, rank, pixels, lanes);
}

bool ProbeBlendPlanar(Mode mode, int rank, const int32_t* size, int channels, const float* const* x,
                      int count, const int32_t* offset, const float* weight, float* const* out) {
  return GRIDSAMPLE_DISPATCH(ProbeBlendPlanarOnTarget)(mode, rank, size, channels, x, count, offset,
                                                       weight, out);
}

bool ProbeBlendInterleaved(Mode mode, bool uint8, int channels, const void* x, int32_t row,
                           const void* tail, int32_t end_window, int count, const int32_t* offset,
                           const float* weight, int begin, int end, int exact_end, void* out) {
  return GRIDSAMPLE_DISPATCH(ProbeBlendInterleavedOnTarget)(mode, uint8, channels, x, row, tail,
                                                            end_window, count, offset, weight,
                                                            begin, end, exact_end, out);
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
