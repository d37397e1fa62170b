// Scalar reference GridSample for any rank, mode, padding and dtype, written line by
// line from DESIGN.md section 2; slow on purpose, it is the oracle for the fast paths. Each axis's
// taps are folded into a window as the planner folds them (FoldTaps), so that every path rounds
// alike. WarpFlow runs the same sampler on its pixel positions (pixel_rule.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/points.h"
#include "reference/reference.h"
#include "rules/axis_line.h"
#include "rules/constants.h"
#include "rules/coordinate_rule.h"
#include "rules/dtype_traits.h"
#include "rules/keys_cubic.h"
#include "rules/non_finite.h"
#include "rules/pixel_rule.h"

namespace gridsample {
namespace reference {
namespace {

// Reflects integer index i into [0, s-1]: about -0.5 and s-0.5 (align 0) or
// about 0 and s-1 (align 1), as often as needed.
int64_t ReflectIndex(int64_t i, int64_t s, bool align_corners) {
  if (align_corners) {
    if (s == 1) return 0;
    const int64_t period = 2 * (s - 1);
    int64_t m = i % period;
    if (m < 0) m += period;
    return m < s ? m : period - m;
  }
  const int64_t period = 2 * s;
  int64_t m = i % period;
  if (m < 0) m += period;
  return m < s ? m : period - 1 - m;
}

int64_t PadIndex(int64_t i, int64_t s, Padding padding, bool align_corners) {
  switch (padding) {
    case Padding::kZeros: return (i >= 0 && i < s) ? i : -1;
    case Padding::kBorder: return i < 0 ? 0 : (i >= s ? s - 1 : i);
    case Padding::kReflection: return ReflectIndex(i, s, align_corners);
  }
  return -1;
}

// Keys' kernel (rules/keys_cubic.h) at |t| <= 1 and at 1 < |t| < 2.
template <typename Acc>
Acc CubicNear(Acc t) {
  const Acc a = Acc(kCubicA);
  return GRIDSAMPLE_CUBIC_NEAR(t, a + 2, a + 3, Acc(1));
}

template <typename Acc>
Acc CubicFar(Acc t) {
  const Acc a = Acc(kCubicA);
  return GRIDSAMPLE_CUBIC_FAR(t, a, 5 * a, 8 * a, 4 * a);
}

// Taps and weights along one axis of size s at the pixel coordinate x (finite).
template <typename Acc>
void TapsAtPixel(Acc x, int64_t s, const GridSampleOptions& o, AxisTaps<Acc>* taps) {
  const Acc lo = -kFarPixels<Acc>;
  const Acc hi = static_cast<Acc>(s) + kFarPixels<Acc>;
  if (!(x >= lo)) x = lo;
  if (!(x <= hi)) x = hi;

  taps->count = TapsPerAxis(o.mode);
  switch (o.mode) {
    case Mode::kNearest: {
      taps->index[0] = static_cast<int64_t>(std::nearbyint(x));  // half to even
      taps->weight[0] = 1;
      break;
    }
    case Mode::kLinear: {
      const Acc f = std::floor(x);
      taps->index[0] = static_cast<int64_t>(f);
      taps->index[1] = taps->index[0] + 1;
      taps->weight[0] = (f + 1) - x;
      taps->weight[1] = x - f;
      break;
    }
    case Mode::kCubic: {
      const Acc f = std::floor(x);
      const Acc t = x - f;
      for (int k = 0; k < 4; ++k) taps->index[k] = static_cast<int64_t>(f) - 1 + k;
      taps->weight[0] = CubicFar<Acc>(t + 1);
      taps->weight[1] = CubicNear<Acc>(t);
      taps->weight[2] = CubicNear<Acc>(1 - t);
      taps->weight[3] = CubicFar<Acc>(2 - t);
      break;
    }
  }
  taps->first = taps->index[0];
  for (int k = 0; k < taps->count; ++k) {
    taps->index[k] = PadIndex(taps->index[k], s, o.padding, o.align_corners);
  }
}

// The taps folded into the planner's window (AxisWindow, reference.h).
template <typename Acc>
void FoldTaps(const AxisTaps<Acc>& taps, int64_t s, Padding padding, AxisWindow<Acc>* window) {
  const int count = taps.count;
  int64_t lo = taps.first;  // zeros padding keeps the taps where they are
  if (padding != Padding::kZeros) {
    lo = taps.index[0];
    for (int k = 1; k < count; ++k) lo = std::min(lo, taps.index[k]);
  }
  int64_t start = lo < 0 ? 0 : lo;
  if (start > s - count) start = s - count;
  if (start < 0) start = 0;  // an axis shorter than the window
  window->count = count;
  for (int j = 0; j < count; ++j) {
    Acc sum = 0;
    for (int k = 0; k < count; ++k) {
      if (taps.index[k] == start + j) sum += taps.weight[k];
    }
    window->weight[j] = sum;
    window->index[j] = start + j < s ? start + j : s - 1;
  }
}

// Taps and weights along one axis of size s for the finite normalised coordinate g.
template <typename Acc>
void AxisTapsOf(double g, int64_t s, const GridSampleOptions& o, AxisTaps<Acc>* taps) {
  const Acc gc = CoordinateAs<Acc>(g, o.padding);
  const AxisLine line = NormalisedLine(s, o.align_corners);
  const Acc x = GRIDSAMPLE_PIXEL_ON_LINE(gc, static_cast<Acc>(line.scale),
                                         static_cast<Acc>(line.shift), Acc(1), Acc(0.5));
  TapsAtPixel<Acc>(x, s, o, taps);
}

// Taps and weights along one axis of size s for the finite pixel position u (pixel_rule.h):
// reduced by whole periods first for reflection when far, then taken as it is.
template <typename Acc>
void PixelTapsOf(float u, int64_t s, const GridSampleOptions& o, AxisTaps<Acc>* taps) {
  if (ReducesFarCoordinates(o.padding)) u = ReducePixel(u, s, o.align_corners);
  TapsAtPixel<Acc>(static_cast<Acc>(u), s, o, taps);
}

// An axis's taps for a coordinate in `space` (finite).
template <typename Acc>
void TapsIn(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& o,
            AxisTaps<Acc>* taps) {
  if (space == CoordinateSpace::kPixels) {
    PixelTapsOf<Acc>(static_cast<float>(v), s, o, taps);
  } else {
    AxisTapsOf<Acc>(v, s, o, taps);
  }
}

// An axis's window for a coordinate in `space` (finite).
template <typename Acc>
void WindowIn(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& o,
              AxisWindow<Acc>* window) {
  AxisTaps<Acc> taps;
  TapsIn<Acc>(space, v, s, o, &taps);
  FoldTaps<Acc>(taps, s, o.padding, window);
}

// Output points whose coordinates are made at once (on the stack, kMaxSpatialRank per point).
constexpr int64_t kChunk = 64;

// Every dtype whose values are computed in Acc (one instance per compute type).
template <typename Acc>
void Sample(const PlanesProblem& problem, const Points& points) {
  const GridSampleGeometry& geo = problem.geometry;
  const TensorView& x = problem.x;
  const MutableTensorView& y = problem.y;
  const GridSampleOptions& o = problem.options;
  const int r = geo.rank;
  int64_t stride[kMaxSpatialRank];  // element strides of the spatial axes of X
  stride[r - 1] = 1;
  for (int a = r - 2; a >= 0; --a) stride[a] = stride[a + 1] * geo.in[a + 1];

  double coords[kChunk * kMaxSpatialRank];
  for (int64_t n = 0; n < geo.n; ++n) {
    for (int64_t p = 0; p < geo.out_spatial; ++p) {
      if (p % kChunk == 0) {
        points.Fill(n, p, geo.out_spatial - p < kChunk ? geo.out_spatial - p : kChunk, coords);
      }
      AxisWindow<Acc> window[kMaxSpatialRank];
      bool finite = true;
      for (int a = 0; a < r; ++a) {
        const double coord = coords[p % kChunk * r + a];
        if (SamplesNothing(coord)) {
          finite = false;
          break;
        }
        WindowIn<Acc>(points.space(), coord, geo.in[a], o, &window[a]);
      }
      for (int64_t c = 0; c < geo.c; ++c) {
        const int64_t out = (n * geo.c + c) * geo.out_spatial + p;
        if (!finite) {
          StoreAs<Acc>(x.dtype, y.data, out, Acc(0));
          continue;
        }
        const int64_t plane = (n * geo.c + c) * geo.in_spatial;
        if (o.mode == Mode::kNearest) {  // 0 + the one pixel, or 0 where padding dropped it
          int64_t offset = 0;
          Acc w = 1;
          for (int a = r - 1; a >= 0; --a) {
            w *= window[a].weight[0];
            offset += window[a].index[0] * stride[a];
          }
          StoreAs<Acc>(x.dtype, y.data, out,
                       w != 0 ? Acc(0) + LoadAs<Acc>(x.dtype, x.data, plane + offset) : Acc(0));
          continue;
        }
        // Odometer over the tensor product of window slots, innermost axis fastest, summed from
        // +0 (the planes' blend starts at the first product: -0 where it is the whole sum).
        int k[kMaxSpatialRank] = {};
        Acc acc = 0;
        for (;;) {
          Acc w = 1;
          int64_t offset = 0;
          for (int a = r - 1; a >= 0; --a) {
            w *= window[a].weight[k[a]];
            offset += window[a].index[k[a]] * stride[a];
          }
          acc += w * LoadAs<Acc>(x.dtype, x.data, plane + offset);
          int a = r - 1;
          while (a >= 0 && ++k[a] == window[a].count) k[a--] = 0;
          if (a < 0) break;
        }
        StoreAs<Acc>(x.dtype, y.data, out, acc);
      }
    }
  }
}

}  // namespace

void ComputeTaps(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& options,
                 AxisTaps<float>* taps) {
  TapsIn<float>(space, v, s, options, taps);
}

void ComputeTaps(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& options,
                 AxisTaps<double>* taps) {
  TapsIn<double>(space, v, s, options, taps);
}

void ComputeWindow(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& options,
                   AxisWindow<float>* window) {
  WindowIn<float>(space, v, s, options, window);
}

void ComputeWindow(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& options,
                   AxisWindow<double>* window) {
  WindowIn<double>(space, v, s, options, window);
}

void Run(const PlanesProblem& p) {
  // With an empty Y (N, C or an output size 0) there is nothing to compute, and the taps must
  // not be computed either: with C = 0, X's spatial sizes may be 0, and reflection about an
  // empty axis divides by zero (tests/fuzz/corpus/*/regress-*-empty-axis*).
  if (p.geometry.Empty()) return;
  const Points points(p);
  if (ComputesInDouble(p.x.dtype)) {
    Sample<double>(p, points);
  } else {
    Sample<float>(p, points);
  }
}

}  // namespace reference
}  // namespace gridsample
