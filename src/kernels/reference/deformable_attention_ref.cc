// Scalar reference of multi-scale deformable attention, written from DESIGN.md section 12's
// formula with GridSample's own rules (the unit location's pixel, the non-finite rule, the
// reference's bilinear zeros taps) or the discrete rule (rules/discrete_tap.h); slow on purpose,
// it is the oracle of the fast path.
#include <cstdint>

#include "reference/reference.h"
#include "rules/axis_line.h"
#include "rules/discrete_tap.h"
#include "rules/dtype_traits.h"
#include "rules/non_finite.h"
#include "rules/pixel_rule.h"

namespace gridsample {
namespace reference {
namespace {

// The sampling each level takes: GridSample's bilinear taps with zero padding (align_corners
// applies to normalised coordinates only; the pixel positions below are already computed).
GridSampleOptions BilinearZeros() {
  GridSampleOptions o;
  o.mode = Mode::kLinear;
  o.padding = Padding::kZeros;
  return o;
}

// Channel c of head m's bilinear sample at the unit location (u, v) of a level of h x w pixels
// whose first pixel is `level` (an element index of the value, channel 0, head m); `row` is the
// value's element stride between pixels (M * D). As GridSample's reference sums a pixel: taps
// row by row, weights wx * wy, taps that zeros padding drops skipped; 0 for a non-finite
// location.
float Sample(const TensorView& value, int64_t level, int64_t row, int64_t h, int64_t w, float u,
             float v) {
  if (SamplesNothing(u) || SamplesNothing(v)) return 0.0f;
  const float x = GRIDSAMPLE_PIXEL_OF_UNIT(u, static_cast<float>(w), 0.5f);
  const float y = GRIDSAMPLE_PIXEL_OF_UNIT(v, static_cast<float>(h), 0.5f);
  AxisTaps<float> tx, ty;
  ComputeTaps(CoordinateSpace::kPixels, x, w, BilinearZeros(), &tx);
  ComputeTaps(CoordinateSpace::kPixels, y, h, BilinearZeros(), &ty);
  float acc = 0.0f;
  for (int ky = 0; ky < ty.count; ++ky) {
    for (int kx = 0; kx < tx.count; ++kx) {
      if (ty.index[ky] < 0 || tx.index[kx] < 0) continue;
      const float weight = tx.weight[kx] * ty.weight[ky];
      acc += weight * LoadAs<float>(value.dtype, value.data,
                                    level + (ty.index[ky] * w + tx.index[kx]) * row);
    }
  }
  return acc;
}

// Channel c of head m's discrete sample at (u, v) (rules/discrete_tap.h), as Sample above: the
// one pixel's value added to +0 (as a tap of weight 1 would be), 0 for a non-finite location.
float SampleDiscrete(const TensorView& value, int64_t level, int64_t row, int64_t h, int64_t w,
                     float u, float v) {
  int64_t col = 0, line = 0;
  if (!DiscreteTap(u, v, h, w, &col, &line)) return 0.0f;
  return 0.0f + LoadAs<float>(value.dtype, value.data, level + (line * w + col) * row);
}

}  // namespace

void Run(const DeformableAttentionProblem& p) {
  const DeformableAttentionGeometry& g = p.geometry;
  if (g.Empty()) return;
  const int64_t row = g.heads * g.channels;  // elements from one pixel of S to the next
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t q = 0; q < g.queries; ++q) {
      for (int64_t m = 0; m < g.heads; ++m) {
        const int64_t point0 = ((n * g.queries + q) * g.heads + m) * g.points;
        for (int64_t c = 0; c < g.channels; ++c) {
          float acc = 0.0f;
          int64_t point = point0;  // level l's P_l points follow the levels before it
          for (int64_t l = 0; l < g.levels; ++l) {
            const int64_t level = (n * g.s + g.starts[l]) * row + m * g.channels + c;
            const int64_t h = g.shapes[2 * l], w = g.shapes[2 * l + 1];
            for (int64_t k = 0; k < g.LevelPoints(l); ++k, ++point) {
              const float u = LoadAs<float>(p.locations.dtype, p.locations.data, 2 * point);
              const float v = LoadAs<float>(p.locations.dtype, p.locations.data, 2 * point + 1);
              const float a = LoadAs<float>(p.weights.dtype, p.weights.data, point);
              acc += a * (p.sampling == DeformableSampling::kDiscrete
                              ? SampleDiscrete(p.value, level, row, h, w, u, v)
                              : Sample(p.value, level, row, h, w, u, v));
            }
          }
          StoreAs<float>(p.value.dtype, p.y.data,
                         ((n * g.queries + q) * g.heads + m) * g.channels + c, acc);
        }
      }
    }
  }
}

}  // namespace reference
}  // namespace gridsample
