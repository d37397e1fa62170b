// Channels-last (NHWC) GridSample and the fused affine warp on the fast path, uint8 and float32
// images with 1 to 4 channels: schedules row segments (coordinates from a source, plans from
// the planner, then the interleaved blend, or the uint8 fixed-point blend where windows lie
// inside X) and dispatches.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "drivers/fast.h"
#include "planner/limits.h"
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

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// Every batch item, column tile and row: coordinates of a row segment from the source, plans,
// blend. uint8 bilinear takes the fixed-point blend where it can and plans the other vectors.
template <Mode M, class Source>
HWY_NOINLINE void Drive(const InterleavedProblem& pb, const Source& source) {
  const DF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const int c = pb.c;
  const size_t elem = DTypeSize(pb.dtype);
  const int32_t row = pb.axes.in_w * c;
  const PlanAxes<2> axes{{pb.axes.in_h, pb.axes.in_w}, {row, c}, pb.axes.align};
  const int64_t in_count = static_cast<int64_t>(pb.axes.in_h) * row;
  const int64_t out_count = pb.rows * pb.axes.out_w * c;
  constexpr int kT = kTaps<M>;
  constexpr int kTile =
      TilePlan<M, 2>::kPixels < kAffineTile ? TilePlan<M, 2>::kPixels : kAffineTile;

  // The fixed-point blend: uint8 bilinear; the affine warp's float32 stepped positions only
  // for X sides up to kFixedMaxSide.
  const bool fixed =
      M == Mode::kLinear && pb.dtype == DType::kUint8 &&
      (!Source::kKnowsInterior || (pb.axes.in_w <= kFixedMaxSide && pb.axes.in_h <= kFixedMaxSide));
  [[maybe_unused]] const FixedSetup fs = MakeFixedSetup(pb, row);  // read in bilinear only

  HWY_ALIGN float fill[4] = {};  // the fill colour as the blend adds it
  HWY_ALIGN uint8_t fill_pixel[16] = {};
  const bool has_fill = pb.fill != nullptr;
  if (has_fill) MakeFill(pb, fill, fill_pixel);
  const size_t pixel_bytes = c * elem;

  // Work units: one row of one column tile of one batch item, in the order n, column tile, row.
  const RowUnits units{(pb.axes.out_w + kTile - 1) / kTile, pb.rows};
  const int64_t unit_cost = std::min<int64_t>(kTile, pb.axes.out_w) * PixelCost(c, kT * kT);
  ParallelUnits(pb.threads, pb.n * units.PerItem(), unit_cost, [&](int64_t begin, int64_t end) {
    Source src = source;  // its per-item, per-column and per-row state is this piece's
    TileCoords<2> coords;
    TilePlan<M, 2> plan;
    bool nonempty[kTile];             // per vector: PlanVector found some weight
    HWY_ALIGN uint8_t tail[16] = {};  // C = 3: X's last pixel and a zero, of either dtype
    ImageBytes im{nullptr,
                  tail,
                  row,
                  (pb.axes.in_h - kT) * row + (pb.axes.in_w - kT) * c,
                  has_fill ? fill : nullptr,
                  has_fill ? fill_pixel : nullptr};
    int64_t item = -1, tile = -1;
    int64_t j0 = 0;
    int count = 0;
    const uint8_t* x_n = nullptr;
    uint8_t* y_n = nullptr;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t n = units.Item(u), t = units.Tile(u), i = units.Row(u);
      if (n != item) {
        item = n;
        tile = -1;
        x_n = static_cast<const uint8_t*>(pb.x) + n * in_count * elem;
        y_n = static_cast<uint8_t*>(pb.y) + n * out_count * elem;
        im.x = x_n;
        if (c == 3) std::memcpy(tail, x_n + (in_count - 3) * elem, 3 * elem);
        src.Item(n);
      }
      if (t != tile) {
        tile = t;
        j0 = t * kTile;
        const int64_t rest = pb.axes.out_w - j0;
        count = static_cast<int>(rest < kTile ? rest : kTile);
        src.Columns(j0, count);
      }
      src.Row(pb.row0 + i);
      uint8_t* out = y_n + (i * pb.axes.out_w + j0) * c * elem;
      // The segment's last pixel stores exactly its C elements: the pixel after it starts the
      // next column tile, a work unit that another thread may write first.
      const int exact_end = count - 1;
      // Pixels [a, b) of the segment's coordinates from the source, as pixel positions.
      const auto fill_positions = [&](int a, int b) {
        src.Fill(a, b, &coords);
        TileToPixels<Source::kSpace>(axes, pb.padding, a, b, &coords);
      };
      if constexpr (M == Mode::kLinear) {
        if (fixed) {
          // The fixed-point loop's pixel positions: the source's own, or its coordinates; a
          // pixel source's as filled (ToPixels keeps those inside X as they are; the vectors
          // that fall back are converted then), a grid's once converted.
          constexpr bool kConvertLater =
              Source::kPositionsFromCoords && Source::kSpace == CoordinateSpace::kPixels;
          if constexpr (kConvertLater) {
            src.Fill(0, count, &coords);
          } else if constexpr (Source::kPositionsFromCoords) {
            fill_positions(0, count);
          }
          for (int v = 0; v < count; v += lanes) {
            v = FixedRowOf(c, src, coords, fs, x_n, v, count, out);
            if (v >= count) break;
            // Vector v: planned and blended in float.
            const int end_v = count - v < lanes ? count : v + lanes;
            if constexpr (kConvertLater) {
              TileToPixels<Source::kSpace>(axes, pb.padding, v, end_v, &coords);
            } else if constexpr (!Source::kPositionsFromCoords) {
              fill_positions(v, end_v);
            }
            PlanTileFor<M, 2>(pb.padding, axes, coords, v, end_v, &plan, nonempty);
            if (nonempty[v / lanes]) {
              BlendSegment<M>(plan, pb.dtype, c, im, v, end_v, exact_end, out);
            } else {  // zeros padding, every tap outside
              StoreOutside(im.fill_pixel, pixel_bytes, v, end_v, out);
            }
          }
          continue;
        }
      }
      fill_positions(0, count);
      PlanTileFor<M, 2>(pb.padding, axes, coords, 0, count, &plan, nonempty);
      // Runs of vectors with some weight are blended; the others (zeros padding, every
      // tap outside) are 0 or the fill colour.
      for (int v = 0; v < count;) {
        const int first = v;
        const bool blend = nonempty[v / lanes];
        while (v < count && nonempty[v / lanes] == blend) v += lanes;
        const int end_v = v < count ? v : count;
        if (blend) {
          BlendSegment<M>(plan, pb.dtype, c, im, first, end_v, exact_end, out);
        } else {
          StoreOutside(im.fill_pixel, pixel_bytes, first, end_v, out);
        }
      }
    }
  });
}

template <class Source>
bool DriveMode(const InterleavedProblem& pb, const Source& source) {
  switch (pb.mode) {
    case Mode::kLinear: Drive<Mode::kLinear>(pb, source); break;
    case Mode::kNearest: Drive<Mode::kNearest>(pb, source); break;
    case Mode::kCubic: Drive<Mode::kCubic>(pb, source); break;
  }
  return true;
}

// Entries for one target: a float32 grid, or theta (float32 or float64).
bool InterleavedGrid(const InterleavedProblem& pb, const float* grid) {
  GridRows source(pb.axes, grid);
  return DriveMode(pb, source);
}

bool InterleavedAffine(const InterleavedProblem& pb, const void* theta, DType theta_dtype) {
  AffineRows source(pb.axes, theta, theta_dtype);
  return DriveMode(pb, source);
}

bool InterleavedPerspective(const InterleavedProblem& pb, const void* h, DType h_dtype) {
  PerspectiveRows source(h, h_dtype);
  return DriveMode(pb, source);
}

// Pixel maps: Remap's positions or WarpFlowChannelsLast's offsets, as pairs or planes.
bool InterleavedRemapPairs(const InterleavedProblem& pb, const float* const* maps) {
  return DriveMode(pb, MapRows::Of<PairedMaps, PositionValues>(pb.axes, maps));
}
bool InterleavedRemapPlanes(const InterleavedProblem& pb, const float* const* maps) {
  return DriveMode(pb, MapRows::Of<PlanarMaps, PositionValues>(pb.axes, maps));
}
bool InterleavedFlowPairs(const InterleavedProblem& pb, const float* const* maps) {
  return DriveMode(pb, MapRows::Of<PairedMaps, OffsetValues>(pb.axes, maps));
}
bool InterleavedFlowPlanes(const InterleavedProblem& pb, const float* const* maps) {
  return DriveMode(pb, MapRows::Of<PlanarMaps, OffsetValues>(pb.axes, maps));
}

#else  // HWY_TARGET == HWY_SCALAR: the generic path serves

bool InterleavedGrid(const InterleavedProblem&, const float*) { return false; }
bool InterleavedAffine(const InterleavedProblem&, const void*, DType) { return false; }
bool InterleavedPerspective(const InterleavedProblem&, const void*, DType) { return false; }
bool InterleavedRemapPairs(const InterleavedProblem&, const float* const*) { return false; }
bool InterleavedRemapPlanes(const InterleavedProblem&, const float* const*) { return false; }
bool InterleavedFlowPairs(const InterleavedProblem&, const float* const*) { return false; }
bool InterleavedFlowPlanes(const InterleavedProblem&, const float* const*) { return false; }

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(InterleavedGrid);
HWY_EXPORT(InterleavedAffine);
HWY_EXPORT(InterleavedPerspective);
HWY_EXPORT(InterleavedRemapPairs);
HWY_EXPORT(InterleavedRemapPlanes);
HWY_EXPORT(InterleavedFlowPairs);
HWY_EXPORT(InterleavedFlowPlanes);

namespace {

// Theta's and H's dtypes, as LoadMatrix reads them.
bool IsMatrixDType(DType dtype) { return dtype == DType::kFloat32 || dtype == DType::kFloat64; }

// What a source's kernel reads beyond X: a float32 grid (maps are float32 by their rule),
// theta and H float32 or float64; the perspective warp's columns and a flow's rows and columns
// as exact int32 lanes (kMaxPerspectiveWidth, kMaxFlowSide).
bool SourceFits(const PixelsProblem& p) {
  const ChannelsLastGeometry& geo = p.geometry;
  const bool flow_fits = geo.out_w < kMaxFlowSide && geo.out_h < kMaxFlowSide;
  return Visit(p.source, Overloaded{[](const GridAt& s) { return s.grid.dtype == DType::kFloat32; },
                                    [](const AffineAt& s) { return IsMatrixDType(s.theta.dtype); },
                                    [&](const PerspectiveAt& s) {
                                      return IsMatrixDType(s.h.dtype) &&
                                             geo.out_w <= kMaxPerspectiveWidth;
                                    },
                                    [](const MapPairsAt&) { return true; },
                                    [](const MapPlanesAt&) { return true; },
                                    [&](const FlowPairsAt&) { return flow_fits; },
                                    [&](const FlowPlanesAt&) { return flow_fits; }});
}

// The problem in the kernels' terms, or false when no kernel covers it: a target with SIMD;
// X uint8 or float32 with 1 to 4 channels; offsets fit int32 and reflection works on exact
// float integers; the planner's windows need kT pixels along each axis; the source fits.
bool MakeProblem(const PixelsProblem& p, InterleavedProblem* pb) {
  const ChannelsLastGeometry& geo = p.geometry;
  if (!TargetHasChannelsLast()) return false;
  if (p.x.dtype != DType::kUint8 && p.x.dtype != DType::kFloat32) return false;
  if (geo.c < 1 || geo.c > 4) return false;
  if (geo.in_h >= kMaxAxis || geo.in_w >= kMaxAxis) return false;
  if (geo.in_h * geo.in_w * geo.c >= kMaxElements) return false;
  const int window = TapsPerAxis(p.options.mode);
  if (geo.in_h < window || geo.in_w < window) return false;
  if (!SourceFits(p)) return false;
  pb->n = geo.n;
  pb->axes = ImageAxes{geo.out_h,
                       geo.out_w,
                       static_cast<int32_t>(geo.in_h),
                       static_cast<int32_t>(geo.in_w),
                       p.options.align_corners,
                       p.options.padding == Padding::kReflection};
  pb->row0 = geo.row0;
  pb->rows = geo.rows;
  pb->c = static_cast<int>(geo.c);
  pb->dtype = p.x.dtype;
  pb->x = p.x.data;
  pb->y = p.y.data;
  pb->mode = p.options.mode;
  pb->padding = p.options.padding;
  pb->fill = p.fill;
  pb->threads = p.options.threads;
  return true;
}

const float* Floats(const TensorView& t) { return static_cast<const float*>(t.data); }

}  // namespace

bool TargetHasChannelsLast() { return std::string_view(TargetName()) != "SCALAR"; }

bool Covers(const PixelsProblem& p) {
  InterleavedProblem pb;
  return MakeProblem(p, &pb);
}

bool Try(const PixelsProblem& p) {
  InterleavedProblem pb;
  if (!MakeProblem(p, &pb)) return false;
  if (p.geometry.Empty()) return true;
  return Visit(
      p.source,
      Overloaded{
          [&](const GridAt& s) { return GRIDSAMPLE_DISPATCH(InterleavedGrid)(pb, Floats(s.grid)); },
          [&](const AffineAt& s) {
            return GRIDSAMPLE_DISPATCH(InterleavedAffine)(pb, s.theta.data, s.theta.dtype);
          },
          [&](const PerspectiveAt& s) {
            return GRIDSAMPLE_DISPATCH(InterleavedPerspective)(pb, s.h.data, s.h.dtype);
          },
          [&](const MapPairsAt& s) {
            const float* maps[1] = {Floats(s.map)};
            return GRIDSAMPLE_DISPATCH(InterleavedRemapPairs)(pb, maps);
          },
          [&](const MapPlanesAt& s) {
            const float* maps[2] = {Floats(s.map_x), Floats(s.map_y)};
            return GRIDSAMPLE_DISPATCH(InterleavedRemapPlanes)(pb, maps);
          },
          [&](const FlowPairsAt& s) {
            const float* maps[1] = {Floats(s.flow)};
            return GRIDSAMPLE_DISPATCH(InterleavedFlowPairs)(pb, maps);
          },
          [&](const FlowPlanesAt& s) {
            const float* maps[2] = {Floats(s.flow_x), Floats(s.flow_y)};
            return GRIDSAMPLE_DISPATCH(InterleavedFlowPlanes)(pb, maps);
          }});
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
