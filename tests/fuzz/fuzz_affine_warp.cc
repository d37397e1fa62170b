// Fuzz target: AffineGrid (2-D, 3-D, every theta dtype) against the reference bit for bit, and
// the fused WarpAffine against reference GridSample on AffineGrid's grid, WarpPerspective
// against the reference Remap at its positions (perspective_rule.h) and Remap against the
// reference Remap (pixel_rule.h), on every compiled Highway target, with
// sizes, options and matrix values chosen by the input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "fuzz_checks.h"
#include "fuzz_input.h"
#include "oracles.h"  // the reference's outputs (tests/native)

namespace gridsample_fuzz {
namespace {

constexpr int64_t kMaxElements = 20000;

// A theta entry: real maps' values, simple fractions, dyadic values (exact ties for nearest),
// large translations (many reflections) and the special values.
double ThetaValue(FuzzInput& in) {
  const int kind = in.Byte();
  if (kind < 80) return in.Uniform(-2.0, 2.0);
  if (kind < 128) {
    static constexpr double kSimple[] = {0.0,  1.0, -1.0,      0.5,        -0.5,      2.0, -2.0,
                                         0.25, 1.5, 1.0 / 3.0, -1.0 / 3.0, 2.0 / 3.0, 0.1, -0.0};
    return in.Pick(kSimple);
  }
  if (kind < 160) return static_cast<int8_t>(in.Byte()) / 16.0;
  if (kind < 200) return in.Uniform(-60.0, 60.0);
  return SpecialValue(in);
}

// theta (N, r, r + 1) per batch entry: free entries, a rotation with scales and a shift, a
// signed permutation (flips and quarter turns: grid values exactly on borders and centres) or
// the identity; then maybe some entries replaced by palette values or raw bits.
void FillTheta(FuzzInput& in, int rank, Tensor* theta) {
  const int cols = rank + 1;
  for (int64_t b = 0; b < theta->shape()[0]; ++b) {
    double t[3][4] = {};
    const int kind = in.Below(4);
    for (int r = 0; r < rank; ++r) {
      for (int k = 0; k < cols; ++k) t[r][k] = kind == 0 ? ThetaValue(in) : (r == k ? 1.0 : 0.0);
    }
    if (kind == 1) {  // rotation about the innermost-two plane, scaled, shifted
      const double angle = in.Uniform(-3.2, 3.2), sx = in.Uniform(0.2, 2.0),
                   sy = in.Uniform(0.2, 2.0);
      t[0][0] = sx * std::cos(angle);
      t[0][1] = -sy * std::sin(angle);
      t[1][0] = sx * std::sin(angle);
      t[1][1] = sy * std::cos(angle);
      for (int r = 0; r < rank; ++r) t[r][rank] = in.Uniform(-1.5, 1.5);
    } else if (kind == 2) {  // signed permutation
      const int swap = in.Below(2);
      for (int r = 0; r < rank; ++r) {
        for (int k = 0; k < rank; ++k) t[r][k] = 0.0;
      }
      for (int r = 0; r < rank; ++r) {
        const int k = r < 2 && swap ? 1 - r : r;
        t[r][k] = in.Flag() ? 1.0 : -1.0;
        t[r][rank] = in.Below(4) == 0 ? static_cast<int8_t>(in.Byte()) / 32.0 : 0.0;
      }
    }
    const int changes = in.Below(4) == 0 ? 1 + in.Below(3) : 0;
    for (int i = 0; i < changes; ++i) t[in.Below(rank)][in.Below(cols)] = ThetaValue(in);
    for (int r = 0; r < rank; ++r) {
      for (int k = 0; k < cols; ++k) {
        const int64_t i = (b * rank + r) * cols + k;
        if (in.Byte() < 4) {
          SetRaw(in, theta, i);
        } else {
          theta->Set(i, t[r][k]);
        }
      }
    }
  }
}

// A spatial size: 1 often (AffineGrid's base coordinate 0), 0 sometimes (empty), else 2 to 20.
int64_t Size(FuzzInput& in) {
  const int b = in.Byte();
  if (b < 12) return 0;
  if (b < 64) return 1;
  return 2 + b % 19;
}

// A width crossing the kernels' 512-column tiles, sometimes.
int64_t MaybeWide(FuzzInput& in, int64_t size) {
  return in.Byte() < 20 ? 500 + in.Below(620) : size;
}

void ShrinkTo(std::vector<int64_t*> dims, int64_t multiplier, int64_t limit) {
  for (;;) {
    int64_t total = multiplier;
    for (const int64_t* d : dims) total *= *d;
    if (total <= limit) return;
    int64_t* largest = *std::max_element(
        dims.begin(), dims.end(), [](const int64_t* a, const int64_t* b) { return *a < *b; });
    *largest = (*largest + 1) / 2;
  }
}

DType ThetaDType(FuzzInput& in, bool all_float_dtypes) {
  const int b = in.Byte();
  if (b < 128 || !all_float_dtypes) return b % 2 ? DType::kFloat64 : DType::kFloat32;
  return gridsample_test::kGridDTypes[b % 4];
}

void CheckAffineGrid(FuzzInput& in) {
  const int rank = in.Below(3) == 2 ? 3 : 2;
  const bool align = in.Flag();
  const DType dtype = ThetaDType(in, /*all_float_dtypes=*/true);
  static constexpr int64_t kBatch[] = {0, 1, 1, 1, 2, 3};
  static constexpr int64_t kChannels[] = {0, 1, 1, 3, 4, int64_t{1} << 31, INT64_MAX};
  std::vector<int64_t> size = {in.Pick(kBatch), in.Pick(kChannels)};
  for (int a = 0; a < rank; ++a) size.push_back(Size(in));
  size.back() = MaybeWide(in, size.back());
  std::vector<int64_t*> spatial;
  for (int a = 0; a < rank; ++a) spatial.push_back(&size[2 + a]);
  ShrinkTo(spatial, std::max<int64_t>(size[0], 1) * rank, kMaxElements);

  Tensor theta(dtype, {size[0], rank, rank + 1});
  FillTheta(in, rank, &theta);
  std::vector<int64_t> grid_shape(size.size());
  const gridsample::AffineGridOptions options{align, {}};
  const Status shape_status =
      gridsample::AffineGridOutputShape(size.data(), size.size(), grid_shape.data());
  if (!shape_status.ok())
    Fail("AffineGridOutputShape " + ToString(size) + ": " + StatusString(shape_status));
  Tensor want = Output(dtype, grid_shape);
  const Status want_status = gridsample::reference::AffineGrid(
      theta.View(), size.data(), size.size(), want.MutableView(), options);
  ForEachTarget(dtype == DType::kFloat32, [&](const char* target) {
    const std::string what = std::string("AffineGrid theta ") + Name(dtype) +
                             ToString(theta.shape()) + " size " + ToString(size) +
                             " align_corners=" + (align ? "1" : "0") + " target " + target;
    Trace(what);
    Tensor got = Output(dtype, grid_shape);
    const Status s =
        gridsample::AffineGrid(theta.View(), size.data(), size.size(), got.MutableView(), options);
    CheckSameStatus(s, want_status, got, what);
    if (!s.ok()) return;
    for (int64_t i = 0; i < got.size(); ++i) {
      if (!SameBits(got, want, i)) {
        const int64_t batch = i / (got.size() / size[0]);
        std::string t;
        for (int k = 0; k < rank * (rank + 1); ++k)
          t += ValueString(theta, batch * rank * (rank + 1) + k) + ' ';
        Fail(what + ": grid element " + ToString(gridsample_test::Unravel(i, got.shape())) +
             ": got " + ValueString(got, i) + ", reference " + ValueString(want, i) + "; theta[" +
             std::to_string(batch) + "] = " + t);
      }
    }
  });
}

// H (N, 3, 3): maps around the scaling of the output onto X with perspective terms from the
// input (horizons inside the output among them), affine ones, or nine entries of ThetaValue.
void FillHomography(FuzzInput& in, int64_t h, int64_t w, int64_t ho, int64_t wo, Tensor* m) {
  for (int64_t b = 0; b < m->shape()[0]; ++b) {
    double v[9];
    const int kind = in.Below(4);
    if (kind == 0) {
      for (double& e : v) e = ThetaValue(in);
    } else {
      const double sx = static_cast<double>(w) / std::max<int64_t>(wo, 1);
      const double sy = static_cast<double>(h) / std::max<int64_t>(ho, 1);
      const double p[9] = {sx * in.Uniform(0.5, 1.5),
                           in.Uniform(-0.5, 0.5),
                           in.Uniform(-3, 3),
                           in.Uniform(-0.5, 0.5),
                           sy * in.Uniform(0.5, 1.5),
                           in.Uniform(-3, 3),
                           kind == 1 ? 0.0 : in.Uniform(-2.0, 2.0) / std::max<int64_t>(wo, 1),
                           kind == 1 ? 0.0 : in.Uniform(-2.0, 2.0) / std::max<int64_t>(ho, 1),
                           kind == 3 ? ThetaValue(in) : 1.0};
      std::copy(p, p + 9, v);
    }
    for (int k = 0; k < 9; ++k) m->Set(b * 9 + k, v[k]);
  }
}

// The fused warps this target checks: each a coordinate source on the shared planner.
enum class Warp { kAffine, kPerspective, kRemap };

// What Remap reads: pixel positions inside and around X, exact centres and half-pixel ties,
// far away, and the special values.
float MapValue(FuzzInput& in, int64_t size) {
  const int kind = in.Byte();
  const double s = static_cast<double>(size);
  if (kind < 150) return static_cast<float>(in.Uniform(-3.0, s + 2.0));
  if (kind < 190)
    return static_cast<float>(std::floor(in.Uniform(-3.0, s + 2.0)) + (kind % 2 ? 0.5 : 0.0));
  if (kind < 210) return static_cast<float>(in.Uniform(-50.0 * s, 50.0 * s));
  return static_cast<float>(SpecialValue(in));
}

// A fused warp's meaning: reference GridSample on X transposed to NCHW, on `grid` (N, Ho, Wo, 2);
// transposed back.
Status OracleOnGrid(const Tensor& x, const Tensor& grid, const GridSampleOptions& o, Tensor* want) {
  const int64_t n = x.shape()[0], c = x.shape()[3], ho = grid.shape()[1], wo = grid.shape()[2];
  const Tensor x_first = MoveChannels(x, /*to_last=*/false);
  Tensor y_first = Output(x.dtype(), {n, c, ho, wo});
  const Status s =
      gridsample::reference::GridSample(x_first.View(), grid.View(), y_first.MutableView(), o);
  if (s.ok()) *want = MoveChannels(y_first, /*to_last=*/true);
  return s;
}

void CheckWarp(FuzzInput& in, Warp warp) {
  static constexpr int64_t kBatch[] = {1, 1, 1, 2, 0};
  const int64_t n = in.Pick(kBatch);
  int64_t h = Size(in), w = Size(in), ho = Size(in), wo = MaybeWide(in, Size(in));
  const int cb = in.Byte();
  const int64_t c = cb < 12 ? (cb < 6 ? 0 : 5) : 1 + cb % 4;
  const int xb = in.Byte();
  const DType dtype = xb < 110
                          ? DType::kUint8
                          : (xb < 220 ? DType::kFloat32 : gridsample_test::kAllDTypes[xb % 10]);
  const DType theta_dtype = ThetaDType(in, /*all_float_dtypes=*/false);
  const GridSampleOptions options = ReadOptions(in);
  const int64_t taps = options.mode == Mode::kCubic ? 16 : 4;
  ShrinkTo({&h, &w}, std::max<int64_t>(n * c, 1), kMaxElements);
  ShrinkTo({&ho, &wo}, std::max<int64_t>(n * c, 1) * taps, 20 * kMaxElements);

  Tensor x(dtype, {n, h, w, c});
  FillX(in, &x);
  // The matrix (theta or H) or the maps, and the grid of the coordinates they give.
  const int rows = warp == Warp::kPerspective ? 3 : 2;
  Tensor theta(theta_dtype, {n, rows, 3});
  const bool planes = warp == Warp::kRemap && in.Flag();
  Tensor map_x(DType::kFloat32,
               planes ? std::vector<int64_t>{n, ho, wo} : std::vector<int64_t>{n, ho, wo, 2});
  Tensor map_y(DType::kFloat32, {n, ho, wo});
  Tensor grid(warp == Warp::kAffine ? theta_dtype : DType::kFloat32, {n, ho, wo, 2});
  Status want_status;
  if (warp == Warp::kAffine) {
    FillTheta(in, 2, &theta);
    const int64_t size[4] = {n, c, ho, wo};
    want_status =
        gridsample::reference::AffineGrid(theta.View(), size, 4, grid.MutableView(),
                                          gridsample::AffineGridOptions{options.align_corners, {}});
  } else if (warp == Warp::kPerspective) {
    FillHomography(in, h, w, ho, wo, &theta);
    map_x = gridsample_test::PerspectivePositions(theta, ho, wo);
  } else {
    for (int64_t p = 0; p < n * ho * wo; ++p) {
      map_x.Set(planes ? p : 2 * p, MapValue(in, w));
      (planes ? map_y : map_x).Set(planes ? p : 2 * p + 1, MapValue(in, h));
    }
  }
  static constexpr const char* kNames[] = {"WarpAffine", "WarpPerspective", "Remap"};
  const char* op = kNames[static_cast<int>(warp)];
  Tensor want;
  if (want_status.ok()) {
    // WarpPerspective's meaning: Remap at its positions.
    want_status = warp == Warp::kAffine ? OracleOnGrid(x, grid, options, &want)
                                        : gridsample_test::ReferenceRemap(
                                              x, map_x, planes ? &map_y : nullptr, options, &want);
  }
  const bool may_be_fast = (dtype == DType::kUint8 || dtype == DType::kFloat32) && c >= 1 && c <= 4;
  const ChannelMagnitudes magnitudes = MagnitudesNhwc(x);
  ForEachTarget(may_be_fast, [&](const char* target) {
    Tensor got = Output(dtype, {n, ho, wo, c});
    std::ostringstream what;
    what << op << " X " << Name(dtype) << ToString(x.shape());
    if (warp == Warp::kRemap) {
      what << (planes ? " map_x, map_y " : " map ") << ToString(map_x.shape());
    } else {
      what << (warp == Warp::kPerspective ? " H " : " theta ") << Name(theta_dtype);
    }
    what << " -> " << ToString(got.shape()) << ' ' << gridsample_test::Describe(options)
         << " target " << target;
    Trace(what.str());
    Status s;
    switch (warp) {
      case Warp::kAffine:
        s = gridsample::WarpAffine(x.View(), theta.View(), got.MutableView(), options);
        break;
      case Warp::kPerspective:
        s = gridsample::WarpPerspective(x.View(), theta.View(), got.MutableView(), options);
        break;
      case Warp::kRemap:
        s = planes ? gridsample::Remap(x.View(), map_x.View(), map_y.View(), got.MutableView(),
                                       options)
                   : gridsample::Remap(x.View(), map_x.View(), got.MutableView(), options);
        break;
    }
    CheckSameStatus(s, want_status, got, what.str());
    if (!s.ok()) return;
    for (int64_t i = 0; i < got.size(); ++i) {
      if (!ChannelsLastAgree(got, want, i, options, magnitudes)) {
        const int64_t point = i / std::max<int64_t>(c, 1);
        Fail(what.str() + ": output (n, row, col, channel) " +
             ToString(gridsample_test::Unravel(i, got.shape())) + ": got " + ValueString(got, i) +
             ", GridSample reference on its grid " + ValueString(want, i) + "; grid (" +
             ValueString(grid, 2 * point) + ", " + ValueString(grid, 2 * point + 1) + ")");
      }
    }
  });
}

void TestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const int op =
      in.Byte();  // bit 0: AffineGrid; else bit 1: the perspective warp; else bit 2: remap
  if (op & 1) {
    CheckAffineGrid(in);
  } else {
    CheckWarp(in, (op & 2) ? Warp::kPerspective : (op & 4) ? Warp::kRemap : Warp::kAffine);
  }
}

}  // namespace
}  // namespace gridsample_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gridsample_fuzz::TestOneInput(data, size);
  return 0;
}
