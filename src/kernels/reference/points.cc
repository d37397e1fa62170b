// The references' points (points.h): each problem's source in its scalar form, chosen once.
#include "reference/points.h"

#include "sources/affine_source.h"
#include "sources/grid_source.h"
#include "sources/perspective_source.h"

namespace gridsample {
namespace reference {
namespace {

const float* Floats(const TensorView& t) { return static_cast<const float*>(t.data); }

}  // namespace

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
                     const float* flow = Floats(s.flow);
                     SetMaps({flow, flow ? flow + out_spatial_ : nullptr, 2 * out_spatial_, 1},
                             FillMaps<true>);
                   }});
}

Points::Points(const PixelsProblem& p) {
  const ChannelsLastGeometry& geo = p.geometry;
  out_h_ = geo.out_h;
  out_w_ = geo.out_w;
  out_spatial_ = geo.out_h * geo.out_w;
  align_ = p.options.align_corners;
  const int64_t n = out_spatial_;
  Visit(p.source, Overloaded{[&](const GridAt& s) {
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
                             [&](const MapPairsAt& s) {
                               SetMaps(PixelMaps::Pairs(Floats(s.map), n), FillMaps<false>);
                             },
                             [&](const MapPlanesAt& s) {
                               SetMaps(PixelMaps::Planes(Floats(s.map_x), Floats(s.map_y), n),
                                       FillMaps<false>);
                             },
                             [&](const FlowPairsAt& s) {
                               SetMaps(PixelMaps::Pairs(Floats(s.flow), n), FillMaps<true>);
                             },
                             [&](const FlowPlanesAt& s) {
                               SetMaps(PixelMaps::Planes(Floats(s.flow_x), Floats(s.flow_y), n),
                                       FillMaps<true>);
                             }});
}

void Points::SetMaps(const PixelMaps& maps, FillFn fill) {
  maps_ = maps;
  space_ = CoordinateSpace::kPixels;
  fill_ = fill;
}

void Points::FillGrid(const Points& self, int64_t n, int64_t p0, int64_t count, double* coords) {
  GridPoints(self.tensor_, self.rank_, self.out_spatial_, n, p0, count, coords);
}

void Points::FillAffine(const Points& self, int64_t n, int64_t p0, int64_t count, double* coords) {
  AffinePoints(self.tensor_, self.out_h_, self.out_w_, self.align_, n, p0, count, coords);
}

void Points::FillPerspective(const Points& self, int64_t n, int64_t p0, int64_t count,
                             double* coords) {
  PerspectivePoints(self.tensor_, self.out_w_, n, p0, count, coords);
}

template <bool kOffsets>
void Points::FillMaps(const Points& self, int64_t n, int64_t p0, int64_t count, double* coords) {
  MapPoints<kOffsets>(self.maps_, self.out_w_, n, p0, count, coords);
}

}  // namespace reference
}  // namespace gridsample
