// WarpPerspective's H as a coordinate source: each pixel's input position by
// perspective_rule.h (sources/common-inl.h says what a source is; perspective_source.h is the
// scalar form).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_SOURCES_PERSPECTIVE_SOURCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_SOURCES_PERSPECTIVE_SOURCE_INL_H_
#undef GRIDSAMPLE_SOURCES_PERSPECTIVE_SOURCE_INL_H_
#else
#define GRIDSAMPLE_SOURCES_PERSPECTIVE_SOURCE_INL_H_
#endif

#include <cfloat>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "planner/image_axes.h"
#include "planner/tile_plan-inl.h"
#include "problem/problem.h"
#include "rules/dtype_traits.h"
#include "rules/perspective_rule.h"
#include "rules/pixel_rule.h"
#include "sources/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// WarpPerspective's H (N, 3, 3), float32 or float64: each pixel's input pixel position by the
// rule of perspective_rule.h (the row's float terms, then per lane the products, sums and
// quotients the scalar PerspectiveCoordinates computes, in its order).
class PerspectiveRows {
 public:
  PerspectiveRows(const void* h, DType h_dtype) : h_(h), dtype_(h_dtype) {}
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  static constexpr bool kPositionsFromCoords = true;
  static constexpr bool kKnowsInterior = false;
  static constexpr bool kFlatRows = false;

  HWY_INLINE void Item(int64_t n) {
    double h[9];
    LoadMatrix(dtype_, h_, n, 9, h);
    map_ = PerspectiveMapOf(h);
  }
  HWY_INLINE void Columns(int64_t j0, int /*count*/) { j0_ = static_cast<int32_t>(j0); }
  HWY_INLINE void Row(int64_t i) { terms_ = PerspectiveRowTerms(map_, i); }
  HWY_INLINE void Fill(int begin, int end, TileCoords<2>* coords) const {
    const DF d;
    const DI di;
    const int lanes = static_cast<int>(hn::Lanes(d));
    const VF col_x = hn::Set(d, terms_.col_x), col_y = hn::Set(d, terms_.col_y);
    const VF col_w = hn::Set(d, terms_.col_w);
    const VF row_x = hn::Set(d, terms_.row_x), row_y = hn::Set(d, terms_.row_y);
    const VF row_w = hn::Set(d, terms_.row_w);
    const VF zero = hn::Zero(d), max = hn::Set(d, FLT_MAX);
    const VF nan = hn::Set(d, std::numeric_limits<float>::quiet_NaN());
    // PerspectiveQuotient: an overflowing quotient kept finite, non-finite n made NaN.
    const auto quotient = [&](VF n, VF w) {
      const VF q = MinNoNaN(MaxNoNaN(hn::Div(n, w), hn::Neg(max)), max);
      return hn::Add(q, hn::Sub(n, n));
    };
    for (int v = begin; v < end; v += lanes) {
      const VF j = hn::ConvertTo(d, hn::Iota(di, j0_ + v));
      const VF nx = hn::Add(hn::Mul(col_x, j), row_x);
      const VF ny = hn::Add(hn::Mul(col_y, j), row_y);
      const VF nw = hn::Add(hn::Mul(col_w, j), row_w);
      const auto visible = hn::And(hn::Gt(nw, zero), hn::Le(nw, max));
      hn::Store(hn::IfThenElse(visible, quotient(nx, nw), nan), d, coords->g[1] + v);
      hn::Store(hn::IfThenElse(visible, quotient(ny, nw), nan), d, coords->g[0] + v);
    }
  }
  HWY_INLINE CoordPositions Positions(const TileCoords<2>& coords) const {
    return CoordPositions::Of(coords);
  }

 private:
  const void* h_;
  DType dtype_;
  PerspectiveMap map_{};
  PerspectiveTerms terms_{};
  int32_t j0_ = 0;
};

// WarpPerspective's source from its call.
HWY_INLINE PerspectiveRows RowsOf(const ImageAxes& /*axes*/, const PerspectiveAt& s) {
  return PerspectiveRows(s.h.data, s.h.dtype);
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_SOURCES_PERSPECTIVE_SOURCE_INL_H_
