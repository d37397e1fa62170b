// Coordinate sources of the fast paths: where the sampling coordinates of a vector of output
// pixels come from (a grid tensor; an affine or perspective map, pixel maps or a flow, whose
// grid is never materialised), for the planner (plan-inl.h). Each says the space of its values
// (kSpace: normalised, or pixel positions, pixel_rule.h). A new warp is a new source here.
//
// Every source fills TileCoords (plan-inl.h): per axis a (outermost first) an array of the
// tile's coordinates. The channels-last sources walk an image's rows: Item(n), Columns(j0,
// count) per tile of columns, Row(i), then Fill(begin, end, coords) for pixels of the row
// segment, and Positions(coords), the row's pixel coordinates that the uint8 fixed-point blend
// takes (kPositionsFromCoords: from the filled coordinates).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_FAST_COORDS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_FAST_COORDS_INL_H_
#undef GRIDSAMPLE_FAST_COORDS_INL_H_
#else
#define GRIDSAMPLE_FAST_COORDS_INL_H_
#endif

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "fast/affine-inl.h"
#include "fast/constants.h"
#include "fast/fast.h"
#include "fast/plan-inl.h"
#include "hwy/highway.h"
#include "perspective_rule.h"
#include "pixel_rule.h"
#include "reference/reference.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A float32 grid tensor: kRank coordinates per pixel, innermost axis first (x, y[, z]).
template <int kRank>
struct GridSource {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kNormalised;
  const float* grid;  // the first pixel's coordinates (of the batch item being sampled)

  // Pixels [p, p + Lanes) as g[a] per axis; when `valid` < Lanes only the first `valid` are
  // read (the other lanes plan from zeros and their results are dropped), so no read runs
  // past the grid.
  HWY_INLINE void Coords(int64_t p, int valid, VF* g) const {
    const DF d;
    const float* src = grid + p * kRank;
    HWY_ALIGN float tail[kMaxLanes * kRank];
    if (valid < static_cast<int>(hn::Lanes(d))) {
      std::memset(tail, 0, sizeof(tail));
      std::memcpy(tail, src, sizeof(float) * valid * kRank);
      src = tail;
    }
    if constexpr (kRank == 2) {
      hn::LoadInterleaved2(d, src, g[1], g[0]);
    } else {
      hn::LoadInterleaved3(d, src, g[2], g[1], g[0]);
    }
  }

  // The same for pixels p0 + [begin, end) into coords [begin, end) (begin a multiple of Lanes).
  HWY_INLINE void Fill(int64_t p0, int begin, int end, TileCoords<kRank>* coords) const {
    const DF d;
    const int lanes = static_cast<int>(hn::Lanes(d));
    for (int v = begin; v < end; v += lanes) {
      VF g[kRank];
      Coords(p0 + v, end - v, g);
      for (int a = 0; a < kRank; ++a) hn::Store(g[a], d, coords->g[a] + v);
    }
  }
};

// A row's pixel positions from its filled coordinates once they are pixel positions (sources
// with kPositionsFromCoords; TileToPixels), as a value the fixed-point loop keeps in registers
// (the bytes it stores could alias a source's members, which the compiler would then reload).
struct CoordPositions {
  const float* x;
  const float* y;
  static HWY_INLINE CoordPositions Of(const TileCoords<2>& coords) {
    return CoordPositions{coords.g[1], coords.g[0]};
  }
  HWY_INLINE void At(int v, VF* px, VF* py) const {
    const DF d;
    *px = hn::Load(d, x + v);
    *py = hn::Load(d, y + v);
  }
};

// A vector from each of two float planes at x and y; when `valid` < Lanes only the first
// `valid` values are read, the other lanes 0.
HWY_INLINE void LoadPlanes(const float* x, const float* y, int valid, VF* u, VF* w) {
  const DF d;
  if (valid < static_cast<int>(hn::Lanes(d))) {
    HWY_ALIGN float tx[kMaxLanes] = {}, ty[kMaxLanes] = {};
    std::memcpy(tx, x, sizeof(float) * valid);
    std::memcpy(ty, y, sizeof(float) * valid);
    *u = hn::Load(d, tx);
    *w = hn::Load(d, ty);
  } else {
    *u = hn::LoadU(d, x);
    *w = hn::LoadU(d, y);
  }
}

// WarpFlow's (N, 2, Ho, Wo) float32 flow, for one batch item of the NCHW driver: the pixels
// [p, p + Lanes) of the output at the pixel positions (j + dx, i + dy) (pixel_rule.h's
// FlowPosition per lane); when `valid` < Lanes only the first `valid` are read.
struct FlowSource {
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  const float* dx;  // the item's flow planes
  const float* dy;
  int32_t width;  // output columns, below 2^24
  HWY_INLINE void Coords(int64_t p, int valid, VF* g) const {
    const DF d;
    const DI di;
    VF u, w;
    LoadPlanes(dx + p, dy + p, valid, &u, &w);
    // Column and row of each lane: the vector may wrap past row ends (several, for rows
    // shorter than a vector).
    const VI cols = hn::Set(di, width), last = hn::Set(di, width - 1);
    VI j = hn::Iota(di, static_cast<int32_t>(p % width));
    VI i = hn::Set(di, static_cast<int32_t>(p / width));
    for (auto wrap = hn::Gt(j, last); !hn::AllFalse(di, wrap); wrap = hn::Gt(j, last)) {
      j = hn::IfThenElse(wrap, hn::Sub(j, cols), j);
      i = hn::IfThenElse(wrap, hn::Add(i, hn::Set(di, 1)), i);
    }
    g[1] = hn::Add(hn::ConvertTo(d, j), u);
    g[0] = hn::Add(hn::ConvertTo(d, i), w);
  }
};

// GridSampleChannelsLast's (N, Ho, Wo, 2) float32 grid, row by row.
class GridRows {
 public:
  GridRows(const ImageAxes& axes, const float* grid) : axes_(axes), grid_(grid) {}
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kNormalised;
  // The fixed-point blend's positions come from the filled coordinates; no pixels are known
  // to lie inside X in advance.
  static constexpr bool kPositionsFromCoords = true;
  static constexpr bool kKnowsInterior = false;

  HWY_INLINE void Item(int64_t n) { item_.grid = grid_ + n * axes_.out_h * axes_.out_w * 2; }
  HWY_INLINE void Columns(int64_t j0, int /*count*/) { j0_ = j0; }
  HWY_INLINE void Row(int64_t i) { row_ = i * axes_.out_w + j0_; }
  HWY_INLINE void Fill(int begin, int end, TileCoords<2>* coords) const {
    item_.Fill(row_, begin, end, coords);
  }
  HWY_INLINE CoordPositions Positions(const TileCoords<2>& coords) const {
    return CoordPositions::Of(coords);
  }

 private:
  ImageAxes axes_;
  const float* grid_;
  GridSource<2> item_{nullptr};
  int64_t j0_ = 0, row_ = 0;
};

// WarpAffine's theta (N, 2, 3), float32 or float64: each pixel's coordinates are AffineGrid's
// values, computed as the reference computes them (affine-inl.h), one column tile at a time.
// For the fixed-point blend also pixel positions stepped linearly along the row in float32.
class AffineRows {
 public:
  AffineRows(const ImageAxes& axes, const void* theta, bool theta_f64)
      : axes_(axes), theta_(theta), f64_(theta_f64) {}
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kNormalised;
  static constexpr bool kPositionsFromCoords = false;
  static constexpr bool kKnowsInterior = true;

  HWY_INLINE void Item(int64_t n) {
    for (int k = 0; k < 6; ++k) {
      t_[k] = f64_ ? static_cast<const double*>(theta_)[n * 6 + k]
                   : static_cast<double>(static_cast<const float*>(theta_)[n * 6 + k]);
    }
    // Pixel positions along a row: x_j = x_0 + j * dx (the same for y), with denormalisation
    // as a line too: pixel = g * k + (S - 1) / 2, k = S / 2 or (S - 1) / 2.
    const double slope = BaseSlope(axes_.out_w);
    kx_ = axes_.align ? 0.5 * (axes_.in_w - 1) : 0.5 * axes_.in_w;
    ky_ = axes_.align ? 0.5 * (axes_.in_h - 1) : 0.5 * axes_.in_h;
    dx_ = t_[0] * slope * kx_;
    dy_ = t_[3] * slope * ky_;
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
    const double by = reference::AffineBaseCoordinate(i, axes_.out_h, axes_.align);
    AffineRowTerms<2>(t_, by, 0.0, terms_);
    const double bx0 = BaseOffset(axes_.out_w);
    row_x_ = (t_[0] * bx0 + terms_[0][0] + t_[2]) * kx_ + 0.5 * (axes_.in_w - 1);
    row_y_ = (t_[3] * bx0 + terms_[1][0] + t_[5]) * ky_ + 0.5 * (axes_.in_h - 1);
  }
  // AffineGrid's values of pixels [begin, end) of the segment (begin a multiple of Lanes;
  // the column terms are zeros past the segment's end).
  HWY_INLINE void Fill(int begin, int end, TileCoords<2>* coords) const {
    const DF d;
    const int lanes = static_cast<int>(hn::Lanes(d));
    for (int v = begin; v < end; v += lanes) {
      if (f64_) {  // read as GridSample reads a float64 grid: reduced in double (reflection)
        hn::Store(AffineToFloatFromDouble(ax_ + v, terms_[0], axes_.reflect), d, coords->g[1] + v);
        hn::Store(AffineToFloatFromDouble(ay_ + v, terms_[1], axes_.reflect), d, coords->g[0] + v);
      } else {
        hn::Store(AffineToFloat<2>(ax_ + v, terms_[0]), d, coords->g[1] + v);
        hn::Store(AffineToFloat<2>(ay_ + v, terms_[1]), d, coords->g[0] + v);
      }
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
  // AffineGrid's base coordinate along a row as slope * j + offset (exact in real numbers;
  // reference::AffineBaseCoordinate is the rounded value).
  HWY_INLINE double BaseSlope(int64_t size) const {
    if (size == 1) return 0.0;
    return axes_.align ? 2.0 / static_cast<double>(size - 1) : 2.0 / static_cast<double>(size);
  }
  HWY_INLINE double BaseOffset(int64_t size) const {
    if (size == 1) return 0.0;
    return axes_.align ? -1.0 : static_cast<double>(1 - size) / static_cast<double>(size);
  }

  ImageAxes axes_;
  const void* theta_;
  bool f64_;
  double t_[6] = {};
  double kx_ = 0, ky_ = 0, dx_ = 0, dy_ = 0, row_x_ = 0, row_y_ = 0;
  double terms_[2][2] = {};
  int64_t j0_ = 0;
  int count_ = 0;
  VF lanes_dx_, lanes_dy_;
  HWY_ALIGN double ax_[kAffineTile + kMaxLanes];
  HWY_ALIGN double ay_[kAffineTile + kMaxLanes];
};

// WarpPerspective's H (N, 3, 3), float32 or float64: each pixel's input pixel position by the
// rule of perspective_rule.h (the row's float terms, then per lane the products, sums and
// quotients the scalar PerspectiveCoordinates computes, in its order).
class PerspectiveRows {
 public:
  PerspectiveRows(const void* h, bool h_f64) : h_(h), f64_(h_f64) {}
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  static constexpr bool kPositionsFromCoords = true;
  static constexpr bool kKnowsInterior = false;

  HWY_INLINE void Item(int64_t n) {
    double h[9];
    for (int k = 0; k < 9; ++k) {
      h[k] = f64_ ? static_cast<const double*>(h_)[n * 9 + k]
                  : static_cast<double>(static_cast<const float*>(h_)[n * 9 + k]);
    }
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
  bool f64_;
  PerspectiveMap map_{};
  PerspectiveTerms terms_{};
  int32_t j0_ = 0;
};

// Remap's float32 pixel maps, row by row: map_x[p * stride] and map_y[p * stride] for output
// pixel p of the batch (stride 2: one interleaved map), pixel positions as they are; with
// `flow` (WarpFlowChannelsLast) they are offsets, added to the pixel's column and row first
// (pixel_rule.h's FlowPosition; sides below 2^24). The fixed-point blend reads the same
// positions.
class RemapRows {
 public:
  RemapRows(const ImageAxes& axes, const float* map_x, const float* map_y, int stride, bool flow)
      : axes_(axes), map_x_(map_x), map_y_(map_y), stride_(stride), flow_(flow) {}
  static constexpr CoordinateSpace kSpace = CoordinateSpace::kPixels;
  static constexpr bool kPositionsFromCoords = false;
  static constexpr bool kKnowsInterior = false;

  HWY_INLINE void Item(int64_t n) { item_ = n * axes_.out_h * axes_.out_w; }
  HWY_INLINE void Columns(int64_t j0, int count) {
    j0_ = j0;
    count_ = count;
  }
  HWY_INLINE void Row(int64_t i) {
    i_ = i;
    row_ = item_ + i * axes_.out_w + j0_;
  }
  HWY_INLINE void Fill(int begin, int end, TileCoords<2>* coords) const {
    const DF d;
    const int lanes = static_cast<int>(hn::Lanes(d));
    const MapRow map = Positions(*coords);
    for (int v = begin; v < end; v += lanes) {
      VF u, w;
      map.Read(v, end - v < lanes ? end - v : lanes, &u, &w);
      hn::Store(u, d, coords->g[1] + v);
      hn::Store(w, d, coords->g[0] + v);
    }
  }

  // The row segment's positions as the maps hold them, a value the fixed-point loop keeps in
  // registers (see CoordPositions); lanes past the segment read as 0.
  struct MapRow {
    const float* x;
    const float* y;
    int stride, count;
    bool flow;
    int32_t j0, i;  // with flow: the segment's first column and its row
    HWY_INLINE void Read(int v, int valid, VF* u, VF* w) const {
      ReadMaps(v, valid, u, w);
      if (flow) {
        const DF d;
        *u = hn::Add(hn::ConvertTo(d, hn::Iota(DI(), j0 + v)), *u);
        *w = hn::Add(hn::Set(d, static_cast<float>(i)), *w);
      }
    }
    HWY_INLINE void ReadMaps(int v, int valid, VF* u, VF* w) const {
      if (stride == 2) {  // (x, y) pairs, read as a grid's
        VF g[2];
        GridSource<2>{x}.Coords(v, valid, g);
        *u = g[1];
        *w = g[0];
      } else {
        LoadPlanes(x + v, y + v, valid, u, w);
      }
    }
    HWY_INLINE void At(int v, VF* u, VF* w) const {
      const int lanes = static_cast<int>(hn::Lanes(DF()));
      Read(v, count - v < lanes ? count - v : lanes, u, w);
    }
  };
  HWY_INLINE MapRow Positions(const TileCoords<2>& /*coords*/) const {
    return MapRow{map_x_ + row_ * stride_,   map_y_ + row_ * stride_, stride_, count_, flow_,
                  static_cast<int32_t>(j0_), static_cast<int32_t>(i_)};
  }

 private:
  ImageAxes axes_;
  const float* map_x_;
  const float* map_y_;
  int stride_;
  bool flow_;
  int64_t item_ = 0, j0_ = 0, i_ = 0, row_ = 0;
  int count_ = 0;
};

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_FAST_COORDS_INL_H_
