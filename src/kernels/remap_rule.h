// The pixel-coordinate rule of Remap and WarpFlow, in one place for the references and the fast
// sources: a pixel coordinate (pixel centres at integers) to the normalised coordinate the
// samplers take, in float32.
#ifndef GRIDSAMPLE_REMAP_RULE_H_
#define GRIDSAMPLE_REMAP_RULE_H_

#include <cfloat>
#include <cstdint>

namespace gridsample {

// The normalisation of one axis of `size` pixels as a float32 line g = u * scale + offset
// (DESIGN.md section 2, inverted): align_corners 0: g = (2 u + 1) / S - 1; 1: 2 u / (S - 1) - 1,
// and 0 when S = 1. A position maps to the same pixel either way (up to float32 rounding);
// align_corners only chooses reflection's lines.
struct PixelAxis {
  float scale, offset;
};

inline PixelAxis PixelAxisOf(int64_t size, bool align) {
  if (!align) {
    return PixelAxis{static_cast<float>(2.0 / static_cast<double>(size)),
                     static_cast<float>(1.0 / static_cast<double>(size) - 1.0)};
  }
  if (size > 1) return PixelAxis{static_cast<float>(2.0 / static_cast<double>(size - 1)), -1.0f};
  return PixelAxis{0.0f, 0.0f};
}

// Finite positions beyond this are taken as this: then u * scale (scale <= 2) stays finite, so a
// huge position follows the padding rule instead of becoming infinite, which samples 0. On the
// axes where scale > 1 (1 or 2 pixels) every float beyond it is a multiple of both periods of
// reflection, as this value is: it picks the same pixel.
constexpr float kPixelLimit = 0x1p127f;

// The normalised coordinate of pixel position u: u limited as above, the product rounded, then
// the sum (the fast source computes the same per lane). A non-finite u stays non-finite (it
// samples 0).
inline float NormalisePixel(const PixelAxis& axis, float u) {
  if (u > kPixelLimit && u <= FLT_MAX) u = kPixelLimit;
  if (u < -kPixelLimit && u >= -FLT_MAX) u = -kPixelLimit;
  const float scaled = u * axis.scale;
  return scaled + axis.offset;
}

// WarpFlow's position of output column (or row) k displaced by d pixels: float(k) + d, one
// rounding (k below 2^24, exact as a float).
inline float FlowPosition(int64_t k, float d) { return static_cast<float>(k) + d; }

}  // namespace gridsample

#endif  // GRIDSAMPLE_REMAP_RULE_H_
