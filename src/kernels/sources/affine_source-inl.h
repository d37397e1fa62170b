// WarpAffine's theta as a coordinate source: AffineGrid's values of each pixel, never stored
// as a grid (sources/common-inl.h says what a source is; affine_source.h is the scalar form).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_SOURCES_AFFINE_SOURCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_SOURCES_AFFINE_SOURCE_INL_H_
#undef GRIDSAMPLE_SOURCES_AFFINE_SOURCE_INL_H_
#else
#define GRIDSAMPLE_SOURCES_AFFINE_SOURCE_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <utility>

#include "hwy/highway.h"
#include "planner/image_axes.h"
#include "planner/limits.h"
#include "planner/tile_plan-inl.h"
#include "problem/problem.h"
#include "rules/affine_base.h"
#include "rules/axis_line.h"
#include "rules/dtype_traits.h"
#include "rules/pixel_rule.h"
#include "sources/affine_sums-inl.h"
#include "sources/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// WarpAffine's theta (N, 2, 3), float32 or float64: each pixel's coordinates are AffineGrid's
// values, computed as the reference computes them (affine_sums-inl.h), one column tile at a time.
// For the fixed-point blend also pixel positions stepped linearly along the row in float32.
class AffineRows {
 public:
  AffineRows(const ImageAxes& axes, const void* theta, DType theta_dtype)
      : axes_(axes), theta_(theta), dtype_(theta_dtype) {}
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kNormalised;
  static constexpr bool kPositionsFromCoords = false;
  static constexpr bool kKnowsInterior = true;
  static constexpr bool kFlatRows = false;

  HWY_INLINE void Item(int64_t n) {
    LoadMatrix(dtype_, theta_, n, 6, t_);
    // Pixel positions along a row: x_j = x_0 + j * dx (the same for y), with the axis line as
    // x = g * Slope() + Offset().
    const AffineBaseLine base = AffineBaseLineOf(axes_.out_w, axes_.align);
    bx0_ = base.offset;
    x_line_ = NormalisedLine(axes_.in_w, axes_.align);
    y_line_ = NormalisedLine(axes_.in_h, axes_.align);
    dx_ = t_[0] * base.slope * x_line_.Slope();
    dy_ = t_[3] * base.slope * y_line_.Slope();
    const DF d;
    const VF iota = hn::Iota(d, 0.0f);
    lanes_dx_ = hn::Mul(iota, hn::Set(d, static_cast<float>(dx_)));
    lanes_dy_ = hn::Mul(iota, hn::Set(d, static_cast<float>(dy_)));
  }
  HWY_INLINE void Columns(int64_t j0, int count) {
    const int lanes = static_cast<int>(hn::Lanes(DF()));
    const int padded = (count + lanes - 1) / lanes * lanes;
    j0_ = j0;
    count_ = count;
    AffineColumnTerms(t_[0], j0, count, padded, axes_.out_w, axes_.align, ax_);
    AffineColumnTerms(t_[3], j0, count, padded, axes_.out_w, axes_.align, ay_);
  }
  HWY_INLINE void Row(int64_t i) {
    const double by = AffineBaseCoordinate(i, axes_.out_h, axes_.align);
    AffineRowTerms<2>(t_, by, 0.0, terms_);
    row_x_ = (t_[0] * bx0_ + terms_[0][0] + t_[2]) * x_line_.Slope() + x_line_.Offset();
    row_y_ = (t_[3] * bx0_ + terms_[1][0] + t_[5]) * y_line_.Slope() + y_line_.Offset();
  }
  // AffineGrid's values of pixels [begin, end) of the segment (begin a multiple of Lanes;
  // the column terms are zeros past the segment's end), rounded as theta's dtype rounds them.
  HWY_INLINE void Fill(int begin, int end, TileCoords<2>* coords) const {
    const DF d;
    const int lanes = static_cast<int>(hn::Lanes(d));
    if (dtype_ == DType::kFloat64) {  // read as GridSample reads a float64 grid: reduced in
                                      // double (reflection)
      for (int v = begin; v < end; v += lanes) {
        hn::Store(AffineToFloatFromDouble(ax_ + v, terms_[0], axes_.padding), d, coords->g[1] + v);
        hn::Store(AffineToFloatFromDouble(ay_ + v, terms_[1], axes_.padding), d, coords->g[0] + v);
      }
      return;
    }
    for (int v = begin; v < end; v += lanes) {
      hn::Store(AffineToFloat<2>(ax_ + v, terms_[0]), d, coords->g[1] + v);
      hn::Store(AffineToFloat<2>(ay_ + v, terms_[1]), d, coords->g[0] + v);
    }
  }
  // Positions of pixels [v, v + Lanes) from the row's line, the vector's first in double; a
  // value the fixed-point loop keeps in registers (see CoordPositions).
  struct RowPositions {
    double x0, y0, dx, dy;
    int64_t j0;
    VF lanes_dx, lanes_dy;
    HWY_INLINE void At(int v, VF* x, VF* y) const {
      const DF d;
      const double j = static_cast<double>(j0 + v);
      *x = hn::Add(hn::Set(d, static_cast<float>(x0 + j * dx)), lanes_dx);
      *y = hn::Add(hn::Set(d, static_cast<float>(y0 + j * dy)), lanes_dy);
    }
  };
  HWY_INLINE RowPositions Positions(const TileCoords<2>& /*coords*/) const {
    return RowPositions{row_x_, row_y_, dx_, dy_, j0_, lanes_dx_, lanes_dy_};
  }
  // The vectors [begin, end) of the segment whose pixels x_j, y_j certainly stay 1/64 pixel
  // inside [0, S - 1] (far more than the float32 error of the positions), worked out in
  // double: the fixed-point blend skips its per-vector test there.
  HWY_INLINE std::pair<int, int> InteriorVectors(int from) const {
    constexpr double kMargin = 1.0 / 64;
    const int lanes = static_cast<int>(hn::Lanes(DF()));
    double j_lo = -HUGE_VAL, j_hi = HUGE_VAL;
    const auto clip = [&](double p0, double slope, double hi) {
      if (hi - kMargin < kMargin) {  // S = 1: no position is 1/64 inside (fuzz regression)
        j_lo = HUGE_VAL;
        return;
      }
      if (slope == 0.0) {
        if (!(p0 >= kMargin && p0 <= hi - kMargin)) j_lo = HUGE_VAL;
        return;
      }
      double a = (kMargin - p0) / slope, b = (hi - kMargin - p0) / slope;
      if (!(a == a && b == b)) {  // a NaN (non-finite theta): no pixel is certain
        j_lo = HUGE_VAL;
        return;
      }
      if (a > b) std::swap(a, b);
      j_lo = a > j_lo ? a : j_lo;
      j_hi = b < j_hi ? b : j_hi;
    };
    clip(row_x_, dx_, axes_.in_w - 1);
    clip(row_y_, dy_, axes_.in_h - 1);
    // Relative to this segment, limited to [from, count - 1] (NaN compares false: empty).
    double lo = std::ceil(j_lo) - static_cast<double>(j0_);
    double hi = std::floor(j_hi) - static_cast<double>(j0_);
    lo = lo > from ? lo : from;
    hi = hi < count_ - 1 ? hi : count_ - 1;
    if (!(lo <= hi)) return {count_, count_};
    const int ilo = static_cast<int>(lo), ihi = static_cast<int>(hi);
    const int begin = from + (ilo - from + lanes - 1) / lanes * lanes;
    const int end = from + (ihi + 1 - from) / lanes * lanes;
    return {begin, end < begin ? begin : end};
  }

 private:
  ImageAxes axes_;
  const void* theta_;
  DType dtype_;
  double t_[6] = {};
  double bx0_ = 0;  // column 0's base coordinate as the line gives it
  AxisLine x_line_{}, y_line_{};
  double dx_ = 0, dy_ = 0, row_x_ = 0, row_y_ = 0;
  double terms_[2][2] = {};
  int64_t j0_ = 0;
  int count_ = 0;
  VF lanes_dx_, lanes_dy_;
  HWY_ALIGN double ax_[kAffineTile + kMaxLanes];
  HWY_ALIGN double ay_[kAffineTile + kMaxLanes];
};

// WarpAffine's source from its call.
HWY_INLINE AffineRows RowsOf(const ImageAxes& axes, const AffineAt& s) {
  return AffineRows(axes, s.theta.data, s.theta.dtype);
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_SOURCES_AFFINE_SOURCE_INL_H_
