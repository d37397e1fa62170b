// Channels-last (NHWC) GridSample and the fused affine warp on the fast path, uint8 and float32
// images of any channel count: schedules row segments (coordinates from a source, plans from
// the planner, then the interleaved blend, or the uint8 fixed-point blend where windows lie
// inside X) and dispatches.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "drivers/fast.h"
#include "planner/limits.h"
#include "sources/affine_source.h"
#include "sources/grid_source.h"
#include "sources/map_source.h"
#include "sources/perspective_source.h"
#include "threads/parallel.h"

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "drivers/pixels_driver.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "blends/interleaved-inl.h"
#include "sources/affine_source-inl.h"
#include "sources/grid_source-inl.h"
#include "sources/map_source-inl.h"
#include "sources/perspective_source-inl.h"
#include "drivers/pixel_rows-inl.h"
#include "planner/tile_plan-inl.h"
// clang-format on
#include "drivers/export_template.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// One thread's piece of the work, unit by unit (RowUnits: batch item, column tile, row): the
// source's per-item, per-column and per-row state, and one row segment's coordinates and plans.
template <Mode M, class Source>
class RowSegments {
 public:
  RowSegments(const CallRows<M, Source>& call, const Source& source)
      : call_(call),
        src_(source),
        im_{nullptr,
            tail_,
            call.row,
            (call_.pb.axes.in_h - kTaps<M>)*call.row + (call_.pb.axes.in_w - kTaps<M>)*call_.pb.c,
            call.fill,
            call.fill_pixel} {}

  HWY_INLINE void Run(const RowUnits& units, int64_t u) {
    const int64_t n = units.Item(u), t = units.Tile(u), i = units.Row(u);
    if (n != item_) {
      item_ = n;
      tile_ = -1;
      x_n_ = static_cast<const uint8_t*>(call_.pb.x) + n * call_.in_count * call_.elem;
      y_n_ = static_cast<uint8_t*>(call_.pb.y) + n * call_.out_count * call_.elem;
      im_.x = x_n_;
      if (call_.pb.c == 3)
        std::memcpy(tail_, x_n_ + (call_.in_count - 3) * call_.elem, 3 * call_.elem);
      src_.Item(n);
    }
    if (t != tile_) {
      tile_ = t;
      j0_ = t * kTile;
      const int64_t rest = call_.width - j0_;
      count_ = static_cast<int>(rest < kTile ? rest : kTile);
      src_.Columns(j0_, count_);
    }
    src_.Row(call_.pb.row0 + i);
    uint8_t* out = y_n_ + (i * call_.width + j0_) * call_.pb.c * call_.elem;
    if constexpr (M == Mode::kLinear) {
      if (call_.fixed) return FixedSegment(out);
    }
    if constexpr (HasPlannerPositions<Source>::value) {
      PlanAndBlend(src_.PlannerPositions(), 0, count_, out);
    } else {
      FillPositions(0, count_);
      PlanAndBlend(StoredPositions<2>{&coords_}, 0, count_, out);
    }
  }

 private:
  static constexpr int kTile = CallRows<M, Source>::kTile;
  static int Lanes() { return static_cast<int>(hn::Lanes(DF())); }

  // Pixels [a, b) of the segment's coordinates from the source, as pixel positions.
  HWY_INLINE void FillPositions(int a, int b) {
    src_.Fill(a, b, &coords_);
    TileToPixels<Source::kSpace>(call_.axes, call_.pb.axes.padding, a, b, &coords_);
  }

  // Plans pixels [a, b) from their positions and blends the runs of vectors with some weight;
  // the others (zeros padding, every tap outside) are 0 or the fill colour, where the positions
  // mark them. The segment's last pixel stores exactly its C elements: the pixel after it starts
  // the next column tile, a work unit that another thread may write first.
  template <class Positions>
  HWY_INLINE void PlanAndBlend(const Positions& positions, int a, int b, uint8_t* out) {
    const int lanes = Lanes();
    PlanTileFor<M, 2>(call_.pb.axes.padding, call_.axes, positions, a, b, &plan_, nonempty_);
    if constexpr (!Positions::kMarksEmpty) {
      return BlendSegment<M>(plan_, call_.pb.dtype, call_.pb.c, im_, a, b, count_ - 1, out);
    }
    for (int v = a; v < b;) {
      const int first = v;
      const bool blend = nonempty_[v / lanes];
      while (v < b && nonempty_[v / lanes] == blend) v += lanes;
      const int end = v < b ? v : b;
      if (blend) {
        BlendSegment<M>(plan_, call_.pb.dtype, call_.pb.c, im_, first, end, count_ - 1, out);
      } else {
        StoreOutside(im_.fill_pixel, call_.pb.c * call_.elem, first, end, out);
      }
    }
  }

  // uint8 bilinear: the fixed-point loop where a vector's windows lie inside X, the float plan
  // for the others. Its positions: the source's own, or its coordinates; a pixel source's as
  // filled (ToPixels keeps those inside X as they are; the vectors that fall back are converted
  // then), a grid's once converted.
  HWY_INLINE void FixedSegment(uint8_t* out) {
    constexpr bool kConvertLater =
        Source::kPositionsFromCoords && Source::kSpace == CoordinateSpace::kPixels;
    if constexpr (kConvertLater) {
      src_.Fill(0, count_, &coords_);
    } else if constexpr (Source::kPositionsFromCoords) {
      FillPositions(0, count_);
    }
    const int lanes = Lanes();
    for (int v = 0; v < count_; v += lanes) {
      v = FixedRowOf(call_.pb.c, src_, coords_, call_.fs, x_n_, v, count_, out);
      if (v >= count_) break;
      const int end = count_ - v < lanes ? count_ : v + lanes;  // vector v falls back
      if constexpr (kConvertLater) {
        TileToPixels<Source::kSpace>(call_.axes, call_.pb.axes.padding, v, end, &coords_);
      } else if constexpr (!Source::kPositionsFromCoords) {
        FillPositions(v, end);
      }
      PlanAndBlend(StoredPositions<2>{&coords_}, v, end, out);
    }
  }

  const CallRows<M, Source>& call_;
  Source src_;  // its per-item, per-column and per-row state is this piece's
  TileCoords<2> coords_;
  TilePlan<M, 2> plan_;
  bool nonempty_[kTile];             // per vector: PlanVector found some weight
  HWY_ALIGN uint8_t tail_[16] = {};  // C = 3: X's last pixel and a zero, of either dtype
  ImageBytes im_;
  int64_t item_ = -1, tile_ = -1, j0_ = 0;
  int count_ = 0;
  const uint8_t* x_n_ = nullptr;
  uint8_t* y_n_ = nullptr;
};

// Every batch item, column tile and row: coordinates of a row segment from the source, plans,
// blend. uint8 bilinear takes the fixed-point blend where it can and plans the other vectors.
// Returns false, having written nothing, when the fill colour found no memory.
template <Mode M, class Source>
HWY_NOINLINE bool Drive(const InterleavedProblem& pb, const Source& source) {
  const CallRows<M, Source> call(pb);
  if (!call.Ready()) return false;
  // Work units: one line of one column tile of one batch item, in the order n, column tile, line.
  constexpr int kTile = CallRows<M, Source>::kTile;
  const RowUnits units{(call.width + kTile - 1) / kTile, call.lines};
  const int64_t unit_cost =
      std::min<int64_t>(kTile, call.width) * PixelCost(pb.c, kTaps<M> * kTaps<M>);
  ParallelUnits(pb.threads, pb.n * units.PerItem(), unit_cost, [&](int64_t begin, int64_t end) {
    RowSegments<M, Source> segments(call, source);
    for (int64_t u = begin; u < end; ++u) segments.Run(units, u);
  });
  return true;
}

template <class Source>
bool DriveMode(const InterleavedProblem& pb, const Source& source) {
  switch (pb.mode) {
    case Mode::kLinear: return Drive<Mode::kLinear>(pb, source);
    case Mode::kNearest: return Drive<Mode::kNearest>(pb, source);
    case Mode::kCubic: return Drive<Mode::kCubic>(pb, source);
  }
  return false;
}

// One source's entry on this target: its vector form from the call (sources/*-inl.h's RowsOf),
// driven in the call's mode.
template <class At>
bool Interleaved(const InterleavedProblem& pb, const At& at) {
  return DriveMode(pb, RowsOf(pb.axes, at));
}

#else  // HWY_TARGET == HWY_SCALAR: the generic path serves

template <class At>
bool Interleaved(const InterleavedProblem&, const At&) {
  return false;
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

GRIDSAMPLE_EXPORT_TEMPLATE(Interleaved);

// The problem in the kernels' terms, or false when no kernel covers it: a target with SIMD;
// X uint8 or float32 with at least one channel; offsets fit int32 and reflection works on exact
// float integers; the planner's windows need kT pixels along each axis; the source's kernel takes
// the call (sources/*.h's PixelsKernelTakes).
bool InterleavedOf(const PixelsProblem& p, InterleavedProblem* pb) {
  const ChannelsLastGeometry& geo = p.geometry;
  if (!TargetHasChannelsLast()) return false;
  if (p.x.dtype != DType::kUint8 && p.x.dtype != DType::kFloat32) return false;
  if (geo.c < 1) return false;
  if (geo.in_h >= kMaxAxis || geo.in_w >= kMaxAxis) return false;
  if (geo.in_h * geo.in_w * geo.c >= kMaxElements) return false;
  const int window = TapsPerAxis(p.options.mode);
  if (geo.in_h < window || geo.in_w < window) return false;
  if (!Visit(p.source, [&](const auto& s) { return PixelsKernelTakes(geo, s); })) return false;
  pb->n = geo.n;
  pb->axes = ImageAxes{geo.out_h,
                       geo.out_w,
                       static_cast<int32_t>(geo.in_h),
                       static_cast<int32_t>(geo.in_w),
                       p.options.align_corners,
                       p.options.padding};
  pb->row0 = geo.row0;
  pb->rows = geo.rows;
  pb->c = static_cast<int>(geo.c);
  pb->dtype = p.x.dtype;
  pb->x = p.x.data;
  pb->y = p.y.data;
  pb->mode = p.options.mode;
  pb->fill = p.fill;
  pb->threads = p.options.threads;
  return true;
}

bool TargetHasChannelsLast() { return std::string_view(TargetName()) != "SCALAR"; }

bool Covers(const PixelsProblem& p) {
  InterleavedProblem pb;
  return InterleavedOf(p, &pb);
}

template <class At>
bool Try(const PixelsProblem& p, const At& source) {
  InterleavedProblem pb;
  if (!InterleavedOf(p, &pb)) return false;
  return p.geometry.Empty() || GRIDSAMPLE_DISPATCH_TEMPLATE(Interleaved, At)(pb, source);
}

bool Try(const PixelsProblem& p) {
  return Visit(p.source, [&](const auto& s) { return Try(p, s); });
}

// Each source's entry for the callers that name its type (fast.h): a new source is one line here
// (its kernel's parts are found by the type: sources/common-inl.h).
template bool Try(const PixelsProblem&, const GridAt&);
template bool Try(const PixelsProblem&, const AffineAt&);
template bool Try(const PixelsProblem&, const PerspectiveAt&);
template bool Try(const PixelsProblem&, const MapPairsAt&);
template bool Try(const PixelsProblem&, const MapPlanesAt&);
template bool Try(const PixelsProblem&, const FlowPairsAt&);
template bool Try(const PixelsProblem&, const FlowPlanesAt&);

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
