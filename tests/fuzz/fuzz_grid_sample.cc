// Fuzz target: GridSample (NCHW, ranks 1-4, every dtype), GridSampleChannelsLast and WarpFlow
// (2-D) against the scalar reference on every compiled Highway target, with shapes, options and
// hostile grid (flow) and X values chosen by the input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "fuzz_checks.h"
#include "fuzz_input.h"
#include "oracles.h"  // the reference's outputs (tests/native)

namespace gridsample_fuzz {
namespace {

// Every tensor of a problem stays under this many elements, and a call under kMaxTapReads
// tap reads (outputs x taps per output), so that an input runs in milliseconds.
constexpr int64_t kMaxElements = 20000;
constexpr int64_t kMaxTapReads = 300000;

struct Problem {
  int rank = 2;
  int64_t n = 1, c = 1;
  std::vector<int64_t> in, out;  // spatial sizes, outermost first
  DType x_dtype = DType::kFloat32;
  DType grid_dtype = DType::kFloat32;
  GridSampleOptions options;
};

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t d : v) p *= d;
  return p;
}

// A spatial size: mostly 1 to 20 (64 for rank 1), sometimes 0 (an empty output, or for X an
// error that both implementations must report), rarely 500 to 1100 (2-D: rows crossing the
// channels-last kernels' 512-pixel tiles).
int64_t SpatialSize(FuzzInput& in, int rank) {
  const int b = in.Byte();
  if (b < 6) return 0;
  if (b >= 252 && rank == 2) return 500 + in.Below(601);
  return 1 + b % (rank == 1 ? 64 : 20);
}

// Halves the largest size of the tensor that is over budget until every one fits.
void Shrink(Problem* p) {
  const int taps =
      p->options.mode == Mode::kNearest ? 1 : (p->options.mode == Mode::kLinear ? 2 : 4);
  int64_t taps_per_output = 1;
  for (int a = 0; a < p->rank; ++a) taps_per_output *= taps;
  for (;;) {
    const int64_t x = p->n * p->c * Product(p->in);
    const int64_t y = p->n * p->c * Product(p->out);
    const int64_t grid = p->n * Product(p->out) * p->rank;
    if (x <= kMaxElements && y <= kMaxElements && grid <= kMaxElements &&
        y * taps_per_output <= kMaxTapReads) {
      return;
    }
    std::vector<int64_t>& dims = x > kMaxElements ? p->in : p->out;
    int64_t& largest = *std::max_element(dims.begin(), dims.end());
    largest = (largest + 1) / 2;
  }
}

Problem ReadProblem(FuzzInput& in) {
  static constexpr int kRanks[] = {1, 2, 2, 2, 3, 3, 3, 4};
  Problem p;
  p.rank = in.Pick(kRanks);
  p.n = 1 + in.Below(3);
  p.c = 1 + in.Below(5);
  for (int a = 0; a < p.rank; ++a) {
    p.in.push_back(SpatialSize(in, p.rank));
    p.out.push_back(SpatialSize(in, p.rank));
  }
  // float32 most often: the fast paths take float32 X with a float32 grid.
  const int xb = in.Byte(), gb = in.Byte();
  p.x_dtype = xb < 128 ? DType::kFloat32 : gridsample_test::kAllDTypes[xb % 10];
  p.grid_dtype = gb < 160 ? DType::kFloat32 : gridsample_test::kGridDTypes[gb % 4];
  p.options = ReadOptions(in);
  Shrink(&p);
  return p;
}

// Normalised coordinate g of pixel coordinate x on an axis of size s (DESIGN.md section 2).
double Normalised(double x, int64_t s, bool align) {
  if (align) return s == 1 ? 0.0 : 2.0 * x / static_cast<double>(s - 1) - 1.0;
  return (2.0 * x + 1.0) / static_cast<double>(s) - 1.0;
}

// A grid coordinate on an axis of size s: interior points, dyadic values (exact in every grid
// dtype), pixel centres and ties between pixels (nearest's half-to-even) for either align, the
// exact borders +-1 and the pixel-centre borders +-(1 - 1/s), values a float ulp either side of
// those, several reflections out, and the special values.
double GridCoordinate(FuzzInput& in, int64_t s, bool align) {
  const int kind = in.Byte();
  if (kind < 96) return in.Uniform(-1.25, 1.25);
  if (kind < 120) return static_cast<int8_t>(in.Byte()) / 64.0;
  if (kind < 176) {
    const double j =
        in.Below(static_cast<int>(std::min<int64_t>(s, 60)) + 4) - 2;  // pixel -2 .. s+1
    const bool which_align = in.Byte() < 192 ? align : !align;
    const double sign = in.Flag() ? 1.0 : -1.0;
    double g = 0.0;
    switch (kind % 6) {
      case 0: g = Normalised(j, s, which_align); break;                // pixel centre
      case 1: g = Normalised(j + 0.5, s, which_align); break;          // tie between two pixels
      case 2: g = sign; break;                                         // the border
      case 3: g = sign * (1.0 - 1.0 / static_cast<double>(s)); break;  // outermost centres
      case 4: g = sign * (1.0 + static_cast<double>(in.Below(4)) / static_cast<double>(s)); break;
      case 5: g = Normalised(j + 0.5 * in.Below(2), s, which_align); break;
    }
    // A float ulp below or above, sometimes: float32 coordinates land on both sides of a tie.
    const int nudge = in.Below(4);
    if (nudge == 1) g = std::nextafter(static_cast<float>(g), -HUGE_VALF);
    if (nudge == 2) g = std::nextafter(static_cast<float>(g), HUGE_VALF);
    return g;
  }
  if (kind < 200) return in.Uniform(-24.0, 24.0);  // several reflections
  return SpecialValue(in);
}

// Fills the grid (N, O1..Or, r): component k of a point is the coordinate on axis r - 1 - k.
// Profiles: 0 every kind of value, 1 no special values, 2 raw bytes too.
void FillGrid(FuzzInput& in, const Problem& p, Tensor* grid) {
  static constexpr int kProfiles[] = {0, 0, 0, 1, 1, 2};
  const int profile = in.Pick(kProfiles);
  for (int64_t i = 0; i < grid->size(); ++i) {
    const int64_t s = p.in[p.rank - 1 - i % p.rank];
    if (profile == 2 && in.Byte() < 48) {
      SetRaw(in, grid, i);
      continue;
    }
    double g = GridCoordinate(in, s, p.options.align_corners);
    while (profile == 1 && !(std::fabs(g) < 1e6))
      g = GridCoordinate(in, s, p.options.align_corners);
    grid->Set(i, g);
  }
}

// NCHW: the public GridSample (on every target when a fast path may take the problem) against
// reference::GridSample.
void CheckNchw(const Problem& p, const Tensor& x, const Tensor& grid, const Tensor& want,
               const Status& want_status) {
  const int64_t out_spatial = Product(p.out), in_spatial = Product(p.in);
  std::vector<double> scale(p.n * p.c);
  std::vector<char> nonfinite(p.n * p.c);
  for (int64_t plane = 0; plane < p.n * p.c; ++plane) {
    bool nf = false;
    Magnitude(x, plane * in_spatial, in_spatial, &scale[plane], &nf);
    nonfinite[plane] = nf;
  }
  const bool may_be_fast = p.x_dtype == DType::kFloat32 && p.grid_dtype == DType::kFloat32 &&
                           (p.rank == 2 || p.rank == 3);
  ForEachTarget(may_be_fast, [&](const char* target) {
    const std::string what = Describe("GridSample", x, grid, p.options, target);
    Trace(what);
    Tensor got = Output(p.x_dtype, want.shape());
    const Status s = gridsample::GridSample(x.View(), grid.View(), got.MutableView(), p.options);
    CheckSameStatus(s, want_status, got, what);
    if (!s.ok()) return;
    for (int64_t i = 0; i < got.size(); ++i) {
      const int64_t plane = i / out_spatial;
      const Tolerance tol =
          GridSampleTolerance(p.x_dtype, p.options, scale[plane], nonfinite[plane], want.Get(i));
      if (!Agree(got.Get(i), want.Get(i), tol)) {
        Fail(what + ": output " + gridsample_test::WhereInY(want, i) + " (flat " +
             std::to_string(i) + "): got " + ValueString(got, i) + ", reference " +
             ValueString(want, i) + ", allowed " + std::to_string(tol.abs) + ", X plane scale " +
             std::to_string(scale[plane]) + (nonfinite[plane] ? " (X has Inf/NaN)" : ""));
      }
    }
  });
}

// 2-D: WarpFlow with the grid read as a flow (N, 2, Ho, Wo) in pixels (each coordinate times
// half its axis, special values as they are) against the reference WarpFlow.
void CheckWarpFlow(const Problem& p, const Tensor& x, const Tensor& grid) {
  const int64_t ho = p.out[0], wo = p.out[1], plane = ho * wo;
  Tensor flow(DType::kFloat32, {p.n, 2, ho, wo});
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t q = 0; q < plane; ++q) {
      for (int a = 0; a < 2; ++a) {  // a = 0: x (W), 1: y (H)
        const double half = static_cast<double>(p.in[1 - a]) / 2;
        flow.Set((n * 2 + a) * plane + q, grid.Get((n * plane + q) * 2 + a) * half);
      }
    }
  }
  Tensor want;
  const Status want_status = gridsample_test::ReferenceWarpFlow(x, flow, p.options, &want);
  const int64_t in_spatial = Product(p.in);
  std::vector<double> scale(p.n * p.c);
  std::vector<char> nonfinite(p.n * p.c);
  for (int64_t k = 0; k < p.n * p.c; ++k) {
    bool nf = false;
    Magnitude(x, k * in_spatial, in_spatial, &scale[k], &nf);
    nonfinite[k] = nf;
  }
  ForEachTarget(p.x_dtype == DType::kFloat32, [&](const char* target) {
    const std::string what = Describe("WarpFlow", x, flow, p.options, target);
    Trace(what);
    Tensor got = Output(p.x_dtype, want.shape());
    const Status s = gridsample::WarpFlow(x.View(), flow.View(), got.MutableView(), p.options);
    CheckSameStatus(s, want_status, got, what);
    if (!s.ok()) return;
    for (int64_t i = 0; i < got.size(); ++i) {
      const int64_t k = i / plane;
      const Tolerance tol =
          GridSampleTolerance(p.x_dtype, p.options, scale[k], nonfinite[k], want.Get(i));
      if (!Agree(got.Get(i), want.Get(i), tol)) {
        Fail(what + ": output " + gridsample_test::WhereInY(want, i) + ": got " +
             ValueString(got, i) + ", reference " + ValueString(want, i));
      }
    }
  });
}

// 2-D: GridSampleChannelsLast on X transposed to (N, H, W, C) against the NCHW reference.
void CheckChannelsLast(const Problem& p, const Tensor& x, const Tensor& grid, const Tensor& want,
                       const Status& want_status) {
  const Tensor x_last = MoveChannels(x, /*to_last=*/true);
  const Tensor want_last = want_status.ok() ? MoveChannels(want, true) : Tensor();
  const bool may_be_fast = (p.x_dtype == DType::kFloat32 || p.x_dtype == DType::kUint8) &&
                           p.grid_dtype == DType::kFloat32 && p.c >= 1 && p.c <= 4;
  const ChannelMagnitudes magnitudes = MagnitudesNhwc(x_last);
  ForEachTarget(may_be_fast, [&](const char* target) {
    const std::string what = Describe("GridSampleChannelsLast", x_last, grid, p.options, target);
    Trace(what);
    Tensor got = Output(p.x_dtype, {p.n, p.out[0], p.out[1], p.c});
    const Status s = gridsample::GridSampleChannelsLast(x_last.View(), grid.View(),
                                                        got.MutableView(), p.options);
    CheckSameStatus(s, want_status, got, what);
    if (!s.ok()) return;
    for (int64_t i = 0; i < got.size(); ++i) {
      if (!ChannelsLastAgree(got, want_last, i, p.options, magnitudes)) {
        Fail(what + ": output (n, row, col, channel) " +
             ToString(gridsample_test::Unravel(i, got.shape())) + ": got " + ValueString(got, i) +
             ", reference " + ValueString(want_last, i));
      }
    }
  });
}

void TestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const Problem p = ReadProblem(in);
  Tensor x(p.x_dtype, gridsample_test::TensorShape(p.n, p.c, p.in));
  Tensor grid(p.grid_dtype, gridsample_test::GridShape(p.n, p.out));
  FillX(in, &x);
  FillGrid(in, p, &grid);

  Tensor want = Output(p.x_dtype, gridsample_test::TensorShape(p.n, p.c, p.out));
  const Status want_status =
      gridsample::reference::GridSample(x.View(), grid.View(), want.MutableView(), p.options);
  CheckNchw(p, x, grid, want, want_status);
  if (p.rank == 2) {
    CheckChannelsLast(p, x, grid, want, want_status);
    if (p.grid_dtype == DType::kFloat32) CheckWarpFlow(p, x, grid);
  }
}

}  // namespace
}  // namespace gridsample_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gridsample_fuzz::TestOneInput(data, size);
  return 0;
}
