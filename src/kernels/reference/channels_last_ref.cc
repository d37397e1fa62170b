// Channels-last (NHWC) GridSample, the affine and perspective warps and remap for every dtype and
// channel count, scalar: per output pixel each axis's taps folded as the planner folds them and,
// per channel, the blend's sum in its order. What the fast paths do not cover runs here.
#include <cstdint>

#include "reference/points.h"
#include "reference/reference.h"
#include "rules/dtype_traits.h"
#include "rules/non_finite.h"

namespace gridsample {
namespace reference {
namespace {
// Output pixels per chunk whose coordinates are made at once (on the stack, y and x each).
constexpr int64_t kChunk = 256;

// Every dtype computed in Acc, any C: per output pixel each axis's window (ComputeWindow: the
// taps folded as the planner folds them) and, per channel, the interleaved blend's sum in its
// order (blends/interleaved-inl.h: window slots row by row, weight (1 * w_x) * w_y, from 0), with
// a fill colour plus fill times the weight left outside X (1 minus the slot weights in that
// order), and integer store. Nearest takes 0 + the pixel, or the fill colour (0 without one)
// where zeros padding drops it. A non-finite coordinate gives 0, or fill.
template <typename Acc>
void RunGeneric(const PixelsProblem& problem, const Points& points) {
  const ChannelsLastGeometry& geo = problem.geometry;
  const TensorView& x = problem.x;
  const MutableTensorView& y = problem.y;
  const GridSampleOptions& o = problem.options;
  const double* fill = problem.fill;
  const auto outside = [fill](int64_t c) { return fill ? static_cast<Acc>(fill[c]) : Acc(0); };
  const int64_t h = geo.in_h, w = geo.in_w, c_count = geo.c;
  const CoordinateSpace space = points.space();
  double coords[2 * kChunk];  // y, x per pixel
  for (int64_t n = 0; n < geo.n; ++n) {
    const int64_t x_n = n * h * w * c_count;
    for (int64_t i = geo.row0; i < geo.row0 + geo.rows; ++i) {
      for (int64_t j0 = 0; j0 < geo.out_w; j0 += kChunk) {
        const int64_t count = geo.out_w - j0 < kChunk ? geo.out_w - j0 : kChunk;
        points.Fill(n, i * geo.out_w + j0, count, coords);
        for (int64_t j = 0; j < count; ++j) {
          const int64_t out = ((n * geo.rows + i - geo.row0) * geo.out_w + j0 + j) * c_count;
          const double gy = coords[2 * j], gx = coords[2 * j + 1];
          if (SamplesNothing(gx) || SamplesNothing(gy)) {
            for (int64_t c = 0; c < c_count; ++c) {
              StoreAs<Acc>(x.dtype, y.data, out + c, Acc(0) + outside(c));
            }
            continue;
          }
          AxisWindow<Acc> ty, tx;
          ComputeWindow(space, gy, h, o, &ty);
          ComputeWindow(space, gx, w, o, &tx);
          for (int64_t c = 0; c < c_count; ++c) {
            if (o.mode == Mode::kNearest) {
              const Acc weight = (Acc(1) * tx.weight[0]) * ty.weight[0];
              const int64_t at = x_n + (ty.index[0] * w + tx.index[0]) * c_count + c;
              StoreAs<Acc>(x.dtype, y.data, out + c,
                           weight != 0 ? Acc(0) + LoadAs<Acc>(x.dtype, x.data, at) : outside(c));
              continue;
            }
            Acc acc = 0, left = 1;
            for (int a = 0; a < ty.count; ++a) {
              for (int b = 0; b < tx.count; ++b) {
                const Acc weight = (Acc(1) * tx.weight[b]) * ty.weight[a];
                const int64_t at = x_n + (ty.index[a] * w + tx.index[b]) * c_count + c;
                acc += weight * LoadAs<Acc>(x.dtype, x.data, at);
                left -= weight;
              }
            }
            if (fill != nullptr) acc += left * outside(c);
            StoreAs<Acc>(x.dtype, y.data, out + c, acc);
          }
        }
      }
    }
  }
}

}  // namespace

void Run(const PixelsProblem& p) {
  // An empty Y has nothing to compute: with C = 0 its Ho x Wo pixels may be very many (a
  // WarpAffine output size is free) and X's sizes may be 0, where reflection would divide by
  // zero (tests/fuzz/corpus/*/regress-*-empty-*).
  if (p.geometry.Empty()) return;
  const Points points(p);
  if (ComputesInDouble(p.x.dtype)) {
    RunGeneric<double>(p, points);
  } else {
    RunGeneric<float>(p, points);
  }
}

}  // namespace reference
}  // namespace gridsample
