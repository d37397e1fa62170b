// The fused warps' public entry points (warp_affine.h): WarpAffine and WarpPerspective, of the
// whole output or of a band of its rows, and their argument rule: validate once, then the fast
// path, else the generic scalar path (reference/channels_last_ref.cc).
#include "gridsample/warp_affine.h"

#include <string>

#include "api/run.h"
#include "api/validation.h"

namespace gridsample {

namespace {

// A fused warp's X, matrix (N, rows, 3) float32 or float64 named `name`, and Y (N, Ho, Wo, C)
// of X's dtype, whose Ho and Wo are free (the output size).
Status ValidateWarp(const char* op, const char* name, int rows, const TensorView& x,
                    const TensorView& m, const MutableTensorView& y,
                    ChannelsLastGeometry* geometry) {
  int64_t x_count = 0;
  Status s = CheckChannelsLastX(op, x, &x_count);
  if (!s.ok()) return s;
  const std::string what = name;
  if (m.dtype != DType::kFloat32 && m.dtype != DType::kFloat64) {
    return Invalid(op, what + ": expected dtype float32 or float64, got " + DTypeString(m.dtype));
  }
  int64_t m_count = 0;
  s = CheckInput<Given::kShapesAndDTypes>(op, name, m, &m_count);
  if (!s.ok()) return s;
  const int64_t want_m[3] = {x.shape[0], rows, 3};
  bool m_ok = m.rank == 3;
  for (size_t i = 0; m_ok && i < 3; ++i) m_ok = m.shape[i] == want_m[i];
  if (!m_ok) {
    return Invalid(op, what + ": expected shape " + ShapeString(want_m, 3) + " for X of shape " +
                           ShapeString(x.shape, 4) + ", got " + ShapeString(m.shape, m.rank));
  }
  // The output size is Y's own (Ho, Wo): check those two before anything is derived from them.
  if (y.rank != 4 || y.shape == nullptr) {
    return Invalid(op, "Y: expected shape [" + std::to_string(x.shape[0]) + ", Ho, Wo, " +
                           std::to_string(x.shape[3]) + "] (rank 4), got rank " +
                           std::to_string(y.rank) +
                           (y.shape ? " shape " + ShapeString(y.shape, y.rank)
                                    : std::string(" with a null shape pointer")));
  }
  for (int i = 1; i < 3; ++i) {
    if (y.shape[i] < 0) {
      return Invalid(op, "Y: dimension " + std::to_string(i) + " must be >= 0, got " +
                             std::to_string(y.shape[i]) + " in shape " + ShapeString(y.shape, 4));
    }
  }
  const int64_t y_shape[4] = {x.shape[0], y.shape[1], y.shape[2], x.shape[3]};
  s = ChannelsLastOutput(op, x, x_count, y_shape, geometry);
  if (s.ok()) s = CheckData(op, "X", x);
  if (s.ok()) s = CheckData(op, name, m);
  if (!s.ok()) return s;
  return CheckOutput(op, "Y", y, x.dtype, y_shape, 4, {{x, x_count}, {m, m_count}});
}

}  // namespace

Status ValidateWarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                          ChannelsLastGeometry* geometry) {
  return ValidateWarp("WarpAffine", "theta", 2, x, theta, y, geometry);
}

Status ValidateWarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                               ChannelsLastGeometry* geometry) {
  return ValidateWarp("WarpPerspective", "H", 3, x, h, y, geometry);
}

namespace {

using Validate = Status (*)(const TensorView&, const TensorView&, const MutableTensorView&,
                            ChannelsLastGeometry*);
using Source = PixelsProblem::Source (*)(const TensorView& matrix);

// One warp: its rule, and the source its matrix is.
struct WarpKind {
  Validate validate;
  Source source;
};
constexpr WarpKind kAffine = {
    ValidateWarpAffine, [](const TensorView& m) -> PixelsProblem::Source { return AffineAt{m}; }};
constexpr WarpKind kPerspective = {
    ValidateWarpPerspective,
    [](const TensorView& m) -> PixelsProblem::Source { return PerspectiveAt{m}; }};

// The checks of a warp's call that come before its output rows.
Status ValidateWarpCall(const WarpKind& kind, const char* op, const TensorView& x,
                        const TensorView& m, const MutableTensorView& y,
                        const GridSampleOptions& options, ChannelsLastGeometry* geo) {
  Status s = ValidateGridSampleOptions(options, op);
  if (s.ok()) s = kind.validate(x, m, y, geo);
  return s;
}

// A validated warp: its fill checked, then run.
Status RunWarp(const WarpKind& kind, const char* op, const ChannelsLastGeometry& geo,
               const TensorView& x, const TensorView& m, const MutableTensorView& y,
               const GridSampleOptions& options, const double* fill) {
  const Status s = ValidateFill(options, fill, x.dtype, geo.c, op);
  if (!s.ok()) return s;
  Run(PixelsProblem{geo, x, kind.source(m), y, options, fill});
  return Status::Ok();
}

// The whole output.
Status Warp(const WarpKind& kind, const char* op, const TensorView& x, const TensorView& m,
            const MutableTensorView& y, const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  const Status s = ValidateWarpCall(kind, op, x, m, y, options, &geo);
  return s.ok() ? RunWarp(kind, op, geo, x, m, y, options, fill) : s;
}

// A band of rows of it.
Status WarpRows(const WarpKind& kind, const char* op, const TensorView& x, const TensorView& m,
                const MutableTensorView& y, const OutputRows& rows,
                const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  Status s = ValidateWarpCall(kind, op, x, m, y, options, &geo);
  if (s.ok()) s = ValidateOutputRows(op, rows, &geo);
  return s.ok() ? RunWarp(kind, op, geo, x, m, y, options, fill) : s;
}

}  // namespace

Status WarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                  const GridSampleOptions& options, const double* fill) {
  return Warp(kAffine, "WarpAffine", x, theta, y, options, fill);
}

Status WarpAffineRows(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                      const OutputRows& rows, const GridSampleOptions& options,
                      const double* fill) {
  return WarpRows(kAffine, "WarpAffineRows", x, theta, y, rows, options, fill);
}

Status WarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                       const GridSampleOptions& options, const double* fill) {
  return Warp(kPerspective, "WarpPerspective", x, h, y, options, fill);
}

Status WarpPerspectiveRows(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                           const OutputRows& rows, const GridSampleOptions& options,
                           const double* fill) {
  return WarpRows(kPerspective, "WarpPerspectiveRows", x, h, y, rows, options, fill);
}

}  // namespace gridsample
