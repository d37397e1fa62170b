// Channels-last (NHWC) GridSample, the affine and perspective warps and remap for every dtype and
// channel count, scalar: per output pixel the reference's per-axis taps and, per channel, the
// reference's sum in its order. What the fast paths do not cover runs here.
#include <cmath>
#include <cstdint>

#include "api/validation.h"
#include "reference/reference.h"
#include "rules/dtype_traits.h"
#include "rules/perspective_rule.h"
#include "rules/pixel_rule.h"

namespace gridsample {
namespace reference {
namespace {
// Output pixels per chunk whose coordinates are made at once (two double arrays on the stack).
constexpr int64_t kChunk = 256;

// Where the coordinates of output pixels come from: normalised, a grid of any float dtype or
// AffineGrid's values for theta; pixel positions, WarpPerspective's for H (perspective_rule.h),
// Remap's maps or WarpFlowChannelsLast's displaced positions (pixel_rule.h). Fill()
// writes those of pixels (n, i, j0 .. j0 + count) as doubles. Not a template: RunGeneric is
// instantiated once per compute type.
struct Coordinates {
  const ChannelsLastGeometry* geo;
  const TensorView* grid;   // or null
  const TensorView* theta;  // when grid is null
  const TensorView* h;      // when grid and theta are null
  const float* map_x;       // when all three are null: pixel x of each output pixel, at
  const float* map_y;       //   map_x[p * stride] (map_y[p * stride] its y)
  int64_t stride;
  bool align;
  bool flow;  // the maps hold offsets from each output pixel (pixel_rule.h's FlowPosition)

  // Pixel positions for H and the maps, else normalised.
  CoordinateSpace Space() const {
    return h != nullptr || map_x != nullptr ? CoordinateSpace::kPixels
                                            : CoordinateSpace::kNormalised;
  }

  // The matrix of batch item n (count entries, float32 or float64) as doubles.
  static void Load(const TensorView& m, int64_t n, int count, double* out) {
    for (int k = 0; k < count; ++k) {
      out[k] = m.dtype == DType::kFloat64
                   ? static_cast<const double*>(m.data)[n * count + k]
                   : static_cast<double>(static_cast<const float*>(m.data)[n * count + k]);
    }
  }

  void Fill(int64_t n, int64_t i, int64_t j0, int64_t count, double* gx, double* gy) const {
    if (grid != nullptr) {
      VisitDType(
          grid->dtype,
          [&](auto tag) {
            using TG = typename decltype(tag)::type;
            const TG* p =
                static_cast<const TG*>(grid->data) + ((n * geo->out_h + i) * geo->out_w + j0) * 2;
            for (int64_t j = 0; j < count; ++j) {
              gx[j] = static_cast<double>(DTypeTraits<TG>::Load(p + 2 * j));
              gy[j] = static_cast<double>(DTypeTraits<TG>::Load(p + 2 * j + 1));
            }
          },
          /*floats_only=*/true);
      return;
    }
    if (map_x != nullptr) {
      const int64_t p0 = (n * geo->out_h + i) * geo->out_w + j0;
      for (int64_t j = 0; j < count; ++j) {
        float u = map_x[(p0 + j) * stride], v = map_y[(p0 + j) * stride];
        if (flow) {
          u = FlowPosition(j0 + j, u);
          v = FlowPosition(i, v);
        }
        gx[j] = static_cast<double>(u);
        gy[j] = static_cast<double>(v);
      }
      return;
    }
    if (h != nullptr) {
      double m[9];
      Load(*h, n, 9, m);
      const PerspectiveTerms terms = PerspectiveRowTerms(PerspectiveMapOf(m), i);
      for (int64_t j = 0; j < count; ++j) {
        float x, y;
        PerspectiveCoordinates(terms, j0 + j, &x, &y);
        gx[j] = static_cast<double>(x);
        gy[j] = static_cast<double>(y);
      }
      return;
    }
    // AffineGrid's value for pixel (i, j), computed and rounded as the reference does.
    const bool f64 = theta->dtype == DType::kFloat64;
    double t[6];
    Load(*theta, n, 6, t);
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

// Every dtype computed in Acc, any C: per output pixel the reference's taps on each axis and,
// per channel, the reference's sum in its order (taps innermost axis fastest, weight
// (1 * w_x) * w_y, dropped taps skipped or, with fill, reading fill[c], from 0) and integer
// store. A non-finite coordinate gives 0, or fill.
template <typename Acc>
void RunGeneric(const ChannelsLastGeometry& geo, const TensorView& x, const MutableTensorView& y,
                const GridSampleOptions& o, const Coordinates& coords, const double* fill) {
  const auto outside = [fill](int64_t c) { return fill ? static_cast<Acc>(fill[c]) : Acc(0); };
  const int64_t h = geo.in_h, w = geo.in_w, c_count = geo.c;
  const CoordinateSpace space = coords.Space();
  double gx[kChunk], gy[kChunk];
  for (int64_t n = 0; n < geo.n; ++n) {
    const int64_t x_n = n * h * w * c_count;
    for (int64_t i = geo.row0; i < geo.row0 + geo.rows; ++i) {
      for (int64_t j0 = 0; j0 < geo.out_w; j0 += kChunk) {
        const int64_t count = geo.out_w - j0 < kChunk ? geo.out_w - j0 : kChunk;
        coords.Fill(n, i, j0, count, gx, gy);
        for (int64_t j = 0; j < count; ++j) {
          const int64_t out = ((n * geo.rows + i - geo.row0) * geo.out_w + j0 + j) * c_count;
          if (!std::isfinite(gx[j]) || !std::isfinite(gy[j])) {
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

void RunGenericAnyDType(const ChannelsLastGeometry& geo, const TensorView& x,
                        const MutableTensorView& y, const GridSampleOptions& o,
                        const Coordinates& coords, const double* fill = nullptr) {
  // An empty Y has nothing to compute: with C = 0 its Ho x Wo pixels may be very many (a
  // WarpAffine output size is free) and X's sizes may be 0, where reflection would divide by
  // zero (tests/fuzz/corpus/*/regress-*-empty-*).
  if (geo.Empty()) return;
  if (ComputesInDouble(x.dtype)) {
    RunGeneric<double>(geo, x, y, o, coords, fill);
  } else {
    RunGeneric<float>(geo, x, y, o, coords, fill);
  }
}

}  // namespace

void RunGridSampleChannelsLast(const ChannelsLastGeometry& geometry, const TensorView& x,
                               const TensorView& grid, const MutableTensorView& y,
                               const GridSampleOptions& options) {
  RunGenericAnyDType(geometry, x, y, options,
                     Coordinates{&geometry, &grid, nullptr, nullptr, nullptr, nullptr, 0,
                                 options.align_corners, false});
}

void RunWarpAffine(const ChannelsLastGeometry& geometry, const TensorView& x,
                   const TensorView& theta, const MutableTensorView& y,
                   const GridSampleOptions& options, const double* fill) {
  RunGenericAnyDType(geometry, x, y, options,
                     Coordinates{&geometry, nullptr, &theta, nullptr, nullptr, nullptr, 0,
                                 options.align_corners, false},
                     fill);
}

void RunWarpPerspective(const ChannelsLastGeometry& geometry, const TensorView& x,
                        const TensorView& h, const MutableTensorView& y,
                        const GridSampleOptions& options, const double* fill) {
  RunGenericAnyDType(geometry, x, y, options,
                     Coordinates{&geometry, nullptr, nullptr, &h, nullptr, nullptr, 0,
                                 options.align_corners, false},
                     fill);
}

void RunRemap(const ChannelsLastGeometry& geometry, const TensorView& x, const TensorView& map_x,
              const TensorView* map_y, const MutableTensorView& y, const GridSampleOptions& options,
              const double* fill, bool flow) {
  const float* mx = static_cast<const float*>(map_x.data);
  const float* my = map_y ? static_cast<const float*>(map_y->data) : (mx ? mx + 1 : nullptr);
  RunGenericAnyDType(geometry, x, y, options,
                     Coordinates{&geometry, nullptr, nullptr, nullptr, mx, my, map_y ? 1 : 2,
                                 options.align_corners, flow},
                     fill);
}

Status Remap(const TensorView& x, const TensorView& map_x, const TensorView* map_y,
             const MutableTensorView& y, const GridSampleOptions& options, const double* fill,
             bool flow) {
  ChannelsLastGeometry geometry;
  const TensorView maps[2] = {map_x, map_y ? *map_y : TensorView{}};
  const Status s = ValidateRemapCall(flow ? kFlowMaps : kRemapMaps, x, maps, map_y ? 2 : 1, y,
                                     options, fill, &geometry);
  if (s.ok()) RunRemap(geometry, x, map_x, map_y, y, options, fill, flow);
  return s;
}

}  // namespace reference
}  // namespace gridsample
