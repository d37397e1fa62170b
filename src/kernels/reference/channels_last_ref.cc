// Channels-last (NHWC) GridSample, the affine and perspective warps and remap for every dtype and
// channel count, scalar: per output pixel the reference's per-axis taps and, per channel, the
// reference's sum in its order. What the fast paths do not cover runs here.
#include <cmath>
#include <cstdint>
#include <variant>

#include "api/validation.h"
#include "reference/reference.h"
#include "rules/affine_base.h"
#include "rules/dtype_traits.h"
#include "rules/non_finite.h"
#include "rules/perspective_rule.h"
#include "rules/pixel_rule.h"

namespace gridsample {
namespace reference {
namespace {
// Output pixels per chunk whose coordinates are made at once (two double arrays on the stack).
constexpr int64_t kChunk = 256;

// The coordinate sources of the generic path, one per kind: Fill writes the coordinates of
// output pixels (n, i, j0 .. j0 + count) as doubles, in the source's kSpace.

// GridSampleChannelsLast's grid (N, Ho, Wo, 2) of any float dtype: normalised.
struct GridCoordinates {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kNormalised;
  const ChannelsLastGeometry* geo;
  const TensorView* grid;
  void Fill(int64_t n, int64_t i, int64_t j0, int64_t count, double* gx, double* gy) const {
    VisitFloatDType(grid->dtype, [&](auto tag) {
      using TG = typename decltype(tag)::type;
      const TG* p =
          static_cast<const TG*>(grid->data) + ((n * geo->out_h + i) * geo->out_w + j0) * 2;
      for (int64_t j = 0; j < count; ++j) {
        gx[j] = static_cast<double>(DTypeTraits<TG>::Load(p + 2 * j));
        gy[j] = static_cast<double>(DTypeTraits<TG>::Load(p + 2 * j + 1));
      }
    });
  }
};

// WarpAffine's theta (N, 2, 3): AffineGrid's values for each pixel, computed and rounded as
// the reference computes them (normalised).
struct AffineCoordinates {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kNormalised;
  const ChannelsLastGeometry* geo;
  const TensorView* theta;
  bool align;
  void Fill(int64_t n, int64_t i, int64_t j0, int64_t count, double* gx, double* gy) const {
    const bool f64 = theta->dtype == DType::kFloat64;
    double t[6];
    LoadMatrix(theta->dtype, theta->data, n, 6, t);
    double base[3] = {0.0, AffineBaseCoordinate(i, geo->out_h, align), 1.0};  // (x, y, 1)
    for (int64_t j = 0; j < count; ++j) {
      base[0] = AffineBaseCoordinate(j0 + j, geo->out_w, align);
      double v[2];
      for (int r = 0; r < 2; ++r) {
        v[r] = AffineValue(t + 3 * r, base, 2);
        if (!f64) v[r] = static_cast<double>(static_cast<float>(v[r]));
      }
      gx[j] = v[0];
      gy[j] = v[1];
    }
  }
};

// WarpPerspective's H (N, 3, 3): each pixel's position by perspective_rule.h (pixels).
struct HomographyCoordinates {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  const TensorView* h;
  void Fill(int64_t n, int64_t i, int64_t j0, int64_t count, double* gx, double* gy) const {
    double m[9];
    LoadMatrix(h->dtype, h->data, n, 9, m);
    const PerspectiveTerms terms = PerspectiveRowTerms(PerspectiveMapOf(m), i);
    for (int64_t j = 0; j < count; ++j) {
      float x, y;
      PerspectiveCoordinates(terms, j0 + j, &x, &y);
      gx[j] = static_cast<double>(x);
      gy[j] = static_cast<double>(y);
    }
  }
};

// Remap's float32 maps: the pixel x of output pixel p at x[p * stride], its y at y[p * stride]
// (stride 2: one map of pairs; 1: two planes), positions as they are (pixels).
struct MapCoordinates {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  const ChannelsLastGeometry* geo;
  const float* x;
  const float* y;
  int64_t stride;
  void Fill(int64_t n, int64_t i, int64_t j0, int64_t count, double* gx, double* gy) const {
    const int64_t p0 = (n * geo->out_h + i) * geo->out_w + j0;
    for (int64_t j = 0; j < count; ++j) {
      gx[j] = static_cast<double>(x[(p0 + j) * stride]);
      gy[j] = static_cast<double>(y[(p0 + j) * stride]);
    }
  }
};

// WarpFlowChannelsLast's flow, laid out as Remap's maps: offsets added to each output pixel's
// column and row (pixel_rule.h's FlowPosition).
struct FlowCoordinates {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  MapCoordinates offsets;
  void Fill(int64_t n, int64_t i, int64_t j0, int64_t count, double* gx, double* gy) const {
    offsets.Fill(n, i, j0, count, gx, gy);
    for (int64_t j = 0; j < count; ++j) {
      gx[j] = static_cast<double>(FlowPosition(j0 + j, static_cast<float>(gx[j])));
      gy[j] = static_cast<double>(FlowPosition(i, static_cast<float>(gy[j])));
    }
  }
};

// Any of those as the generic path takes it. Not a template: RunGeneric is instantiated once per
// compute type (code size in wasm), and the source is called once per chunk of pixels.
struct CoordinateSource {
  CoordinateSpace space;
  const void* source;
  void (*fill)(const void* source, int64_t n, int64_t i, int64_t j0, int64_t count, double* gx,
               double* gy);
  void Fill(int64_t n, int64_t i, int64_t j0, int64_t count, double* gx, double* gy) const {
    fill(source, n, i, j0, count, gx, gy);
  }
};

template <class Source>
CoordinateSource SourceOf(const Source& source) {
  return {Source::kSpace, &source,
          [](const void* s, int64_t n, int64_t i, int64_t j0, int64_t count, double* gx,
             double* gy) { static_cast<const Source*>(s)->Fill(n, i, j0, count, gx, gy); }};
}

// Every dtype computed in Acc, any C: per output pixel the reference's taps on each axis and,
// per channel, the reference's sum in its order (taps innermost axis fastest, weight
// (1 * w_x) * w_y, dropped taps skipped or, with fill, reading fill[c], from 0) and integer
// store. A non-finite coordinate gives 0, or fill.
template <typename Acc>
void RunGeneric(const ChannelsLastGeometry& geo, const TensorView& x, const MutableTensorView& y,
                const GridSampleOptions& o, const CoordinateSource& coords, const double* fill) {
  const auto outside = [fill](int64_t c) { return fill ? static_cast<Acc>(fill[c]) : Acc(0); };
  const int64_t h = geo.in_h, w = geo.in_w, c_count = geo.c;
  const CoordinateSpace space = coords.space;
  double gx[kChunk], gy[kChunk];
  for (int64_t n = 0; n < geo.n; ++n) {
    const int64_t x_n = n * h * w * c_count;
    for (int64_t i = geo.row0; i < geo.row0 + geo.rows; ++i) {
      for (int64_t j0 = 0; j0 < geo.out_w; j0 += kChunk) {
        const int64_t count = geo.out_w - j0 < kChunk ? geo.out_w - j0 : kChunk;
        coords.Fill(n, i, j0, count, gx, gy);
        for (int64_t j = 0; j < count; ++j) {
          const int64_t out = ((n * geo.rows + i - geo.row0) * geo.out_w + j0 + j) * c_count;
          if (SamplesNothing(gx[j]) || SamplesNothing(gy[j])) {
            for (int64_t c = 0; c < c_count; ++c) {
              StoreAs<Acc>(x.dtype, y.data, out + c, Acc(0) + outside(c));
            }
            continue;
          }
          AxisTaps<Acc> ty, tx;
          ComputeTaps(space, gy[j], h, o, &ty);
          ComputeTaps(space, gx[j], w, o, &tx);
          for (int64_t c = 0; c < c_count; ++c) {
            Acc acc = 0;
            for (int a = 0; a < ty.count; ++a) {
              if (ty.index[a] < 0 && fill == nullptr) continue;
              for (int b = 0; b < tx.count; ++b) {
                if (tx.index[b] < 0 && fill == nullptr) continue;
                const Acc weight = (Acc(1) * tx.weight[b]) * ty.weight[a];
                if (ty.index[a] < 0 || tx.index[b] < 0) {
                  acc += weight * outside(c);
                  continue;
                }
                const int64_t at = x_n + (ty.index[a] * w + tx.index[b]) * c_count + c;
                acc += weight * LoadAs<Acc>(x.dtype, x.data, at);
              }
            }
            StoreAs<Acc>(x.dtype, y.data, out + c, acc);
          }
        }
      }
    }
  }
}

void RunGenericAnyDType(const PixelsProblem& p, const CoordinateSource& coords) {
  // An empty Y has nothing to compute: with C = 0 its Ho x Wo pixels may be very many (a
  // WarpAffine output size is free) and X's sizes may be 0, where reflection would divide by
  // zero (tests/fuzz/corpus/*/regress-*-empty-*).
  if (p.geometry.Empty()) return;
  if (ComputesInDouble(p.x.dtype)) {
    RunGeneric<double>(p.geometry, p.x, p.y, p.options, coords, p.fill);
  } else {
    RunGeneric<float>(p.geometry, p.x, p.y, p.options, coords, p.fill);
  }
}

const float* Floats(const TensorView& t) { return static_cast<const float*>(t.data); }

// Maps of pairs (x, y): stride 2.
MapCoordinates PairsOf(const ChannelsLastGeometry& geometry, const TensorView& map) {
  const float* x = Floats(map);
  return {&geometry, x, x ? x + 1 : nullptr, 2};
}

// Two planes, x then y: stride 1.
MapCoordinates PlanesOf(const ChannelsLastGeometry& geometry, const TensorView& map_x,
                        const TensorView& map_y) {
  return {&geometry, Floats(map_x), Floats(map_y), 1};
}

}  // namespace

void Run(const PixelsProblem& p) {
  const ChannelsLastGeometry& geo = p.geometry;
  const auto run = [&](const auto& source) { RunGenericAnyDType(p, SourceOf(source)); };
  Visit(p.source,
        Overloaded{[&](const GridAt& s) {
                     run(GridCoordinates{&geo, &s.grid});
                   },
                   [&](const AffineAt& s) {
                     run(AffineCoordinates{&geo, &s.theta, p.options.align_corners});
                   },
                   [&](const PerspectiveAt& s) { run(HomographyCoordinates{&s.h}); },
                   [&](const MapPairsAt& s) { run(PairsOf(geo, s.map)); },
                   [&](const MapPlanesAt& s) { run(PlanesOf(geo, s.map_x, s.map_y)); },
                   [&](const FlowPairsAt& s) { run(FlowCoordinates{PairsOf(geo, s.flow)}); },
                   [&](const FlowPlanesAt& s) {
                     run(FlowCoordinates{PlanesOf(geo, s.flow_x, s.flow_y)});
                   }});
}

Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geometry;
  const Status s = ValidateRemapCall(kRemapMaps, x, &map, 1, y, options, fill, &geometry);
  if (s.ok()) Run(PixelsProblem{geometry, x, MapPairsAt{map}, y, options, fill});
  return s;
}

Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geometry;
  const TensorView maps[2] = {map_x, map_y};
  const Status s = ValidateRemapCall(kRemapMaps, x, maps, 2, y, options, fill, &geometry);
  if (s.ok()) Run(PixelsProblem{geometry, x, MapPlanesAt{map_x, map_y}, y, options, fill});
  return s;
}

}  // namespace reference
}  // namespace gridsample
