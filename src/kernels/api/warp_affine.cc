// The fused warps' public entry points (warp_affine.h): WarpAffine and WarpPerspective, of the
// whole output or of a band of its rows, and their argument rule: validate once, then the fast
// path, else the generic scalar path (reference/channels_last_ref.cc).
#include "gridsample/warp_affine.h"

#include <string>
#include <type_traits>

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

// One warp: the source its matrix is (AffineAt, PerspectiveAt; each warp reaches its source's
// kernels alone) and its rule.
template <class At>
Status ValidateKind(const TensorView& x, const TensorView& m, const MutableTensorView& y,
                    ChannelsLastGeometry* geo) {
  if constexpr (std::is_same_v<At, AffineAt>) {
    return ValidateWarpAffine(x, m, y, geo);
  } else {
    return ValidateWarpPerspective(x, m, y, geo);
  }
}

// A validated warp: its fill checked, then run.
template <class At>
Status RunWarp(const char* op, const ChannelsLastGeometry& geo, const TensorView& x,
               const TensorView& m, const MutableTensorView& y, const GridSampleOptions& options,
               const double* fill) {
  const Status s = ValidateFill(options, fill, x.dtype, geo.c, op);
  if (!s.ok()) return s;
  RunFrom<At>(PixelsProblem{geo, x, At{m}, y, options, fill});
  return Status::Ok();
}

// The whole output.
template <class At>
Status Warp(const char* op, const TensorView& x, const TensorView& m, const MutableTensorView& y,
            const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  Status s = ValidateGridSampleOptions(options, op);
  if (s.ok()) s = ValidateKind<At>(x, m, y, &geo);
  return s.ok() ? RunWarp<At>(op, geo, x, m, y, options, fill) : s;
}

// A band of rows of it.
template <class At>
Status WarpRows(const char* op, const TensorView& x, const TensorView& m,
                const MutableTensorView& y, const OutputRows& rows,
                const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  Status s = ValidateGridSampleOptions(options, op);
  if (s.ok()) s = ValidateKind<At>(x, m, y, &geo);
  if (s.ok()) s = ValidateOutputRows(op, rows, &geo);
  return s.ok() ? RunWarp<At>(op, geo, x, m, y, options, fill) : s;
}

}  // namespace

Status WarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                  const GridSampleOptions& options, const double* fill) {
  return Warp<AffineAt>("WarpAffine", x, theta, y, options, fill);
}

Status WarpAffineRows(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                      const OutputRows& rows, const GridSampleOptions& options,
                      const double* fill) {
  return WarpRows<AffineAt>("WarpAffineRows", x, theta, y, rows, options, fill);
}

Status WarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                       const GridSampleOptions& options, const double* fill) {
  return Warp<PerspectiveAt>("WarpPerspective", x, h, y, options, fill);
}

Status WarpPerspectiveRows(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                           const OutputRows& rows, const GridSampleOptions& options,
                           const double* fill) {
  return WarpRows<PerspectiveAt>("WarpPerspectiveRows", x, h, y, rows, options, fill);
}

}  // namespace gridsample
