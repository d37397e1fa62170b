// The fused warps' public entry points (warp_affine.h): WarpAffine and WarpPerspective, of the
// whole output or of a band of its rows, with the matrix in any space, and their argument rule:
// validate once, then the fast path, else the generic scalar path (reference/channels_last_ref.cc).
#include "gridsample/warp_affine.h"

#include <memory>
#include <new>
#include <string>

#include "api/matrices_internal.h"
#include "api/run.h"
#include "api/sampler_plan.h"
#include "api/validation.h"

namespace gridsample {

namespace {

// A fused warp's shapes and dtypes: X, matrix (N, rows, 3) float32 or float64 named `name`, and
// Y (N, Ho, Wo, C) of X's dtype, whose Ho and Wo are free (the output size); fills the
// geometry and the inputs' element counts.
Status ValidateWarpInputs(const char* op, const char* name, int rows, const TensorView& x,
                          const TensorView& m, const TensorView& y, ChannelsLastGeometry* geometry,
                          int64_t* x_count, int64_t* m_count) {
  Status s = CheckChannelsLastX(op, x, x_count);
  if (!s.ok()) return s;
  const std::string what = name;
  if (m.dtype != DType::kFloat32 && m.dtype != DType::kFloat64) {
    return Invalid(op, what + ": expected dtype float32 or float64, got " + DTypeString(m.dtype));
  }
  s = CheckInput<Given::kShapesAndDTypes>(op, name, m, m_count);
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
  return ChannelsLastOutput(op, x, *x_count, y_shape, geometry);
}

// The same, then the data and Y itself.
Status ValidateWarp(const char* op, const char* name, int rows, const TensorView& x,
                    const TensorView& m, const MutableTensorView& y,
                    ChannelsLastGeometry* geometry) {
  int64_t x_count = 0;
  int64_t m_count = 0;
  Status s = ValidateWarpInputs(op, name, rows, x, m, {y.data, y.dtype, y.shape, y.rank}, geometry,
                                &x_count, &m_count);
  if (s.ok()) s = CheckData(op, "X", x);
  if (s.ok()) s = CheckData(op, name, m);
  if (!s.ok()) return s;
  const int64_t y_shape[4] = {x.shape[0], y.shape[1], y.shape[2], x.shape[3]};
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

// One warp: its operator and matrix rows.
struct WarpKind {
  const char* op;
  int rows;
};
constexpr WarpKind kAffine = {"WarpAffine", 2};
constexpr WarpKind kPerspective = {"WarpPerspective", 3};

// How the matrix is named in messages: theta (normalised WarpAffine), M (OpenCV's pixel-space
// 2x3), H (a homography).
const char* MatrixName(int rows, MatrixSpace space) {
  return rows == 3 ? "H" : space == MatrixSpace::kNormalized ? "theta" : "M";
}

// Normalised WarpAffine: the affine source, AffineGrid's values.
Status ExecuteAffine(const SamplerPlan& p, const TensorView* in, const MutableTensorView& y) {
  RunFrom<AffineAt>(PixelsProblem{p.pixels, in[0], AffineAt{in[1]}, y, p.options, p.fill});
  return Status::Ok();
}

// Every other warp: each item's matrix as the pixel homography from output to input
// (PixelHomography; kPixelInverse homographies as they are), then the perspective source.
Status ExecutePerspective(const SamplerPlan& p, const TensorView* in, const MutableTensorView& y) {
  const TensorView& m = in[1];
  if (p.space == MatrixSpace::kPixelInverse && m.shape[1] == 3) {
    RunFrom<PerspectiveAt>(PixelsProblem{p.pixels, in[0], PerspectiveAt{m}, y, p.options, p.fill});
    return Status::Ok();
  }
  const ChannelsLastGeometry& g = p.pixels;
  const int rows = static_cast<int>(m.shape[1]);
  // The items' homographies: on the stack for a few items (a run allocates nothing), else
  // allocated.
  constexpr int64_t kStackItems = 8;
  double stack[kStackItems * 9];
  std::unique_ptr<double[]> heap;
  double* h = stack;
  if (g.n > kStackItems) {
    heap.reset(new (std::nothrow) double[static_cast<size_t>(g.n) * 9]);
    if (heap == nullptr) {
      return Status::OutOfRange(std::string(p.op) + ": could not allocate " + std::to_string(g.n) +
                                " homographies");
    }
    h = heap.get();
  }
  const WarpSides sides{g.in_h, g.in_w, g.out_h, g.out_w};
  for (int64_t n = 0; n < g.n; ++n) {
    double given[9];
    for (int k = 0; k < 3 * rows; ++k) {
      const int64_t at = n * 3 * rows + k;
      given[k] = m.dtype == DType::kFloat64 ? static_cast<const double*>(m.data)[at]
                                            : static_cast<const float*>(m.data)[at];
    }
    const Status s = PixelHomographyOf(p.op, given, rows, p.space, sides, p.options.align_corners,
                                       h + n * 9, p.input_names[1], p.inverse_option);
    if (!s.ok()) return s;
  }
  const int64_t h_shape[3] = {g.n, 3, 3};
  const TensorView hv{h, DType::kFloat64, h_shape, 3};
  RunFrom<PerspectiveAt>(PixelsProblem{p.pixels, in[0], PerspectiveAt{hv}, y, p.options, p.fill});
  return Status::Ok();
}

// A warp's rule up to its data: options, X, the matrix, Y's shape, the band, the fill.
Status PrepareWarp(const WarpKind& kind, const char* op, const TensorView& x, const TensorView& m,
                   const TensorView& y, const OutputRows* rows, const GridSampleOptions& options,
                   const double* fill, MatrixSpace space, SamplerPlan* plan) {
  int64_t x_count = 0;  // (PlanInputs counts them again, from the checked shapes)
  int64_t m_count = 0;
  ChannelsLastGeometry& geo = plan->pixels;
  const char* name = MatrixName(kind.rows, space);
  Status s = ValidateGridSampleOptions(options, op);
  if (s.ok() && space != MatrixSpace::kNormalized && space != MatrixSpace::kPixel &&
      space != MatrixSpace::kPixelInverse) {
    s = Invalid(op, "space: expected kNormalized, kPixel or kPixelInverse, got " +
                        std::to_string(static_cast<int>(space)));
  }
  if (s.ok()) s = ValidateWarpInputs(op, name, kind.rows, x, m, y, &geo, &x_count, &m_count);
  if (s.ok() && rows != nullptr) s = ValidateOutputRows(op, *rows, &geo);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geo.c, op);
  if (!s.ok()) return s;
  const int64_t y_shape[4] = {geo.n, y.shape[1], y.shape[2], geo.c};
  PlanInputs(op, x, name, m, plan);
  PlanOutput(x.dtype, y_shape, 4, plan);
  plan->options = options;
  plan->fill = fill;
  plan->space = space;
  plan->execute =
      kind.rows == 2 && space == MatrixSpace::kNormalized ? ExecuteAffine : ExecutePerspective;
  return Status::Ok();
}

// A free function: prepared on the stack, then run on the call's data.
Status RunWarp(const WarpKind& kind, const char* op, const TensorView& x, const TensorView& m,
               const MutableTensorView& y, const OutputRows* rows, const GridSampleOptions& options,
               const double* fill, MatrixSpace space) {
  const TensorView y_spec = {y.data, y.dtype, y.shape, y.rank};
  return PrepareAndRun(
      [&](SamplerPlan* plan) {
        return PrepareWarp(kind, op, x, m, y_spec, rows, options, fill, space, plan);
      },
      {x.data, m.data}, y);
}

}  // namespace

Status PrepareWarpAffine(const TensorView& x, const TensorView& m, const TensorView& y,
                         const OutputRows* rows, const GridSampleOptions& options,
                         const double* fill, MatrixSpace space, SamplerPlan* plan) {
  return PrepareWarp(kAffine, rows ? "WarpAffineRows" : kAffine.op, x, m, y, rows, options, fill,
                     space, plan);
}

Status PrepareWarpPerspective(const TensorView& x, const TensorView& h, const TensorView& y,
                              const OutputRows* rows, const GridSampleOptions& options,
                              const double* fill, MatrixSpace space, SamplerPlan* plan) {
  return PrepareWarp(kPerspective, rows ? "WarpPerspectiveRows" : kPerspective.op, x, h, y, rows,
                     options, fill, space, plan);
}

Status Sampler::WarpAffine(const TensorView& x, const TensorView& theta, const TensorView& y,
                           const GridSampleOptions& options, const double* fill, MatrixSpace space,
                           Sampler* sampler) {
  return PrepareSampler(kAffine.op, sampler, [&](SamplerPlan* plan) {
    return PrepareWarp(kAffine, kAffine.op, x, theta, y, nullptr, options, fill, space, plan);
  });
}

Status Sampler::WarpPerspective(const TensorView& x, const TensorView& h, const TensorView& y,
                                const GridSampleOptions& options, const double* fill,
                                MatrixSpace space, Sampler* sampler) {
  return PrepareSampler(kPerspective.op, sampler, [&](SamplerPlan* plan) {
    return PrepareWarp(kPerspective, kPerspective.op, x, h, y, nullptr, options, fill, space, plan);
  });
}

Status WarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                  const GridSampleOptions& options, const double* fill, MatrixSpace space) {
  return RunWarp(kAffine, "WarpAffine", x, theta, y, nullptr, options, fill, space);
}

Status WarpAffineRows(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                      const OutputRows& rows, const GridSampleOptions& options, const double* fill,
                      MatrixSpace space) {
  return RunWarp(kAffine, "WarpAffineRows", x, theta, y, &rows, options, fill, space);
}

Status WarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                       const GridSampleOptions& options, const double* fill, MatrixSpace space) {
  return RunWarp(kPerspective, "WarpPerspective", x, h, y, nullptr, options, fill, space);
}

Status WarpPerspectiveRows(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                           const OutputRows& rows, const GridSampleOptions& options,
                           const double* fill, MatrixSpace space) {
  return RunWarp(kPerspective, "WarpPerspectiveRows", x, h, y, &rows, options, fill, space);
}

}  // namespace gridsample
