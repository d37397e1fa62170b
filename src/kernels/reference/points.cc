// The coordinate sources in scalar form (points.h): the grid read as it is, AffineGrid's values,
// the homography's positions and the pixel maps, each written once for both layouts.
#include "reference/points.h"

#include "reference/reference.h"
#include "rules/affine_base.h"
#include "rules/dtype_traits.h"
#include "rules/perspective_rule.h"

namespace gridsample {
namespace reference {

Points::Points(const PlanesProblem& p) {
  const GridSampleGeometry& geo = p.geometry;
  rank_ = geo.rank;
  out_spatial_ = geo.out_spatial;
  out_h_ = geo.rank == 2 ? geo.out[0] : 1;
  out_w_ = geo.out[geo.rank - 1];
  align_ = p.options.align_corners;
  Visit(p.source,
        Overloaded{[&](const GridAt& s) {
                     tensor_ = s.grid;
                     fill_ = FillGrid;
                   },
                   [&](const FlowAt& s) {  // (N, 2, Ho, Wo): dx, then dy planes
                     const float* flow = static_cast<const float*>(s.flow.data);
                     maps_ = {flow, flow ? flow + out_spatial_ : nullptr, 2 * out_spatial_, 1};
                     space_ = CoordinateSpace::kPixels;
                     fill_ = FillMaps<true>;
                   }});
}

namespace {

const float* Floats(const TensorView& t) { return static_cast<const float*>(t.data); }

}  // namespace

Points::Points(const PixelsProblem& p) {
  const ChannelsLastGeometry& geo = p.geometry;
  out_h_ = geo.out_h;
  out_w_ = geo.out_w;
  out_spatial_ = geo.out_h * geo.out_w;
  align_ = p.options.align_corners;
  const int64_t s = out_spatial_;
  // One map of (x, y) pairs, or two planes.
  const auto pairs = [s](const TensorView& map) {
    const float* x = Floats(map);
    return Maps{x, x ? x + 1 : nullptr, 2 * s, 2};
  };
  const auto planes = [s](const TensorView& x, const TensorView& y) {
    return Maps{Floats(x), Floats(y), s, 1};
  };
  const auto maps = [&](Maps m, FillFn fill) {
    maps_ = m;
    space_ = CoordinateSpace::kPixels;
    fill_ = fill;
  };
  Visit(
      p.source,
      Overloaded{[&](const GridAt& s) {
                   tensor_ = s.grid;
                   fill_ = FillGrid;
                 },
                 [&](const AffineAt& s) {
                   tensor_ = s.theta;
                   fill_ = FillAffine;
                 },
                 [&](const PerspectiveAt& s) {
                   tensor_ = s.h;
                   space_ = CoordinateSpace::kPixels;
                   fill_ = FillPerspective;
                 },
                 [&](const MapPairsAt& s) { maps(pairs(s.map), FillMaps<false>); },
                 [&](const MapPlanesAt& s) { maps(planes(s.map_x, s.map_y), FillMaps<false>); },
                 [&](const FlowPairsAt& s) { maps(pairs(s.flow), FillMaps<true>); },
                 [&](const FlowPlanesAt& s) { maps(planes(s.flow_x, s.flow_y), FillMaps<true>); }});
}

// The grid (N, O1..Or, r) of any float dtype: its last axis lists coordinates innermost first,
// so axis a (outermost first) reads component r - 1 - a.
void Points::FillGrid(const Points& self, int64_t n, int64_t p0, int64_t count, double* coords) {
  const int r = self.rank_;
  VisitFloatDType(self.tensor_.dtype, [&](auto tag) {
    using TG = typename decltype(tag)::type;
    const TG* g = static_cast<const TG*>(self.tensor_.data) + (n * self.out_spatial_ + p0) * r;
    for (int64_t k = 0; k < count; ++k) {
      for (int a = 0; a < r; ++a) {
        coords[k * r + a] = static_cast<double>(DTypeTraits<TG>::Load(g + k * r + (r - 1 - a)));
      }
    }
  });
}

// theta (N, 2, 3): AffineGrid's value of each pixel, computed and rounded as the reference's
// AffineGrid computes it (normalised).
void Points::FillAffine(const Points& self, int64_t n, int64_t p0, int64_t count, double* coords) {
  const bool f64 = self.tensor_.dtype == DType::kFloat64;
  double t[6];
  LoadMatrix(self.tensor_.dtype, self.tensor_.data, n, 6, t);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t i = (p0 + k) / self.out_w_, j = (p0 + k) % self.out_w_;
    const double base[3] = {AffineBaseCoordinate(j, self.out_w_, self.align_),
                            AffineBaseCoordinate(i, self.out_h_, self.align_), 1.0};  // (x, y, 1)
    for (int r = 0; r < 2; ++r) {
      const double v = AffineValue(t + 3 * r, base, 2);
      coords[2 * k + 1 - r] = f64 ? v : static_cast<double>(static_cast<float>(v));  // y, x
    }
  }
}

// H (N, 3, 3): each pixel's position by perspective_rule.h (pixels).
void Points::FillPerspective(const Points& self, int64_t n, int64_t p0, int64_t count,
                             double* coords) {
  double m[9];
  LoadMatrix(self.tensor_.dtype, self.tensor_.data, n, 9, m);
  const PerspectiveMap map = PerspectiveMapOf(m);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t i = (p0 + k) / self.out_w_, j = (p0 + k) % self.out_w_;
    float x, y;
    PerspectiveCoordinates(PerspectiveRowTerms(map, i), j, &x, &y);
    coords[2 * k] = static_cast<double>(y);
    coords[2 * k + 1] = static_cast<double>(x);
  }
}

// float32 pixel maps: positions as they are, or offsets added to each point's column and row
// (pixel_rule.h's FlowPosition).
template <bool kOffsets>
void Points::FillMaps(const Points& self, int64_t n, int64_t p0, int64_t count, double* coords) {
  const Maps& m = self.maps_;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t at = n * m.item + (p0 + k) * m.step;
    float x = m.x[at], y = m.y[at];
    if constexpr (kOffsets) {
      x = FlowPosition((p0 + k) % self.out_w_, x);
      y = FlowPosition((p0 + k) / self.out_w_, y);
    }
    coords[2 * k] = static_cast<double>(y);
    coords[2 * k + 1] = static_cast<double>(x);
  }
}

}  // namespace reference
}  // namespace gridsample
