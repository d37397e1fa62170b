// Fuzz target: argument validation of every public call (GridSample, GridSampleOutputShape,
// AffineGrid, AffineGridOutputShape, WarpAffine, GridSampleChannelsLast) against an independent
// model of the documented contract, with any ranks, sizes (0, 2^31, 2^63 - 1, negatives ...),
// dtype and option values, null pointers and aliased buffers. Every call gets small real buffers:
// an accepted call must fit them, and must leave the other arguments' memory alone; a rejected
// call must write nothing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_checks.h"
#include "fuzz_input.h"
#include "fuzz_validation_args.h"
#include "fuzz_validation_model.h"

namespace gridsample_fuzz {
namespace {

// --- the calls -------------------------------------------------------------------------------

std::string Describe(const char* op, const std::vector<const Arg*>& args,
                     const char* const* names) {
  std::string s = op;
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = *args[i];
    s += std::string(" ") + names[i] + " " + ToString(a.dims) +
         (a.null_shape ? "(null shape)" : "") + " dtype " +
         std::to_string(static_cast<int>(a.dtype)) + " data " +
         (a.buffer < 0 ? std::string("null") : "buffer " + std::to_string(a.buffer));
  }
  return s;
}

// Checks a call against the model. `problem` is empty when the contract says it must succeed;
// `output` is the argument the call writes (or null). Runs the call only when it must fail or
// fits the buffers: a valid call on sizes beyond the buffers would rightly read past them.
template <typename Call>
void Check(const std::string& what, const char* op, const std::string& problem, Memory* m,
           const std::vector<const Arg*>& args, const Arg* output, Call&& call) {
  bool fits = true;
  for (const Arg* a : args) {
    const Size size = Measure(a->dims, Bytes(a->dtype));
    fits = fits && Bytes(a->dtype) > 0 && !size.negative && !size.too_large &&
           (size.bytes == 0 || (a->buffer >= 0 && size.bytes <= kBufferBytes));
  }
  if (problem.empty() && !fits) {
    Trace(what + ": not run (valid, larger than the buffers)");
    return;
  }
  Trace(what + (problem.empty() ? ": valid" : ": must fail, " + problem));
  m->Snapshot();
  const Status s = call();
  if (s.ok() && !problem.empty()) Fail(what + ": accepted, but " + problem);
  if (!s.ok() && problem.empty()) Fail(what + ": a valid call was rejected: " + StatusString(s));
  if (!s.ok() && s.message().rfind(std::string(op) + ": ", 0) != 0) {
    Fail(what + ": message does not start with \"" + op + ": \": " + s.message());
  }
  // Memory: a failed call writes nothing; a successful one only its output's bytes.
  for (int b = 0; b < 3; ++b) {
    const bool written = s.ok() && output && output->buffer == b;
    const int64_t changed = m->Changed(b, written ? ArgBytes(*output) : 0);
    if (changed >= 0) {
      Fail(what + ": status " + StatusString(s) + " but byte " + std::to_string(changed) +
           " of buffer " + std::to_string(b) + " changed");
    }
  }
}

// One GridSample-family problem: x, grid and y (coherent shapes with a few edits, or random).
void CheckGridSample(FuzzInput& in, Memory* m) {
  Arg x, grid, y;
  const GridSampleOptions o = AnyOptions(in);
  if (in.Byte() < 192) {
    const size_t r = in.Byte() < 200 ? 1 + in.Below(4) : in.Below(9);
    x.dims = Dims(in, r + 2);
    grid.dims = {x.dims[0]};
    y.dims = {x.dims[0], x.dims[1]};
    for (size_t a = 0; a < r; ++a) {
      grid.dims.push_back(Dim(in));
      y.dims.push_back(grid.dims.back());
    }
    grid.dims.push_back(static_cast<int64_t>(r));
    Mutate(in, {&x.dims, &grid.dims, &y.dims});
  } else {
    RandomShapes(in, {&x, &grid, &y});
  }
  FinishArgs(in, &x, &grid, &y);
  const char* names[] = {"X", "grid", "Y"};
  const std::string what =
      Describe("GridSample", {&x, &grid, &y}, names) + " " + gridsample_test::Describe(o);

  // GridSampleOutputShape: shapes only; writes x.rank values.
  std::unique_ptr<int64_t[]> y_shape(new int64_t[x.rank()]);
  const bool null_out = in.Byte() < 8;
  const Status s = gridsample::GridSampleOutputShape(x.View(*m), grid.View(*m),
                                                     null_out ? nullptr : y_shape.get());
  const std::string shape_problem =
      null_out ? "output pointer is null"
               : GridSampleProblem(x, grid, nullptr, o, /*shapes_only=*/true);
  if (s.ok() != shape_problem.empty()) {
    Fail(what + ": GridSampleOutputShape " + StatusString(s) +
         ", model: " + (shape_problem.empty() ? "valid" : shape_problem));
  }
  if (s.ok()) {
    std::vector<int64_t> want = {x.dims[0], x.dims[1]};
    want.insert(want.end(), grid.dims.begin() + 1, grid.dims.end() - 1);
    if (std::vector<int64_t>(y_shape.get(), y_shape.get() + x.rank()) != want) {
      Fail(what + ": GridSampleOutputShape gave " +
           ToString(std::vector<int64_t>(y_shape.get(), y_shape.get() + x.rank())));
    }
  }
  Check(what, "GridSample", GridSampleProblem(x, grid, &y, o, false), m, {&x, &grid, &y}, &y,
        [&] { return gridsample::GridSample(x.View(*m), grid.View(*m), y.MutableView(*m), o); });
}

void CheckAffineGrid(FuzzInput& in, Memory* m) {
  Arg theta, grid;
  std::vector<int64_t> size;
  if (in.Byte() < 192) {
    const int64_t r = in.Byte() < 220 ? 2 + in.Below(2) : in.Below(9);
    size = Dims(in, static_cast<size_t>(r + 2));
    theta.dims = {size[0], r, r + 1};
    grid.dims = {size[0]};
    grid.dims.insert(grid.dims.end(), size.begin() + 2, size.end());
    grid.dims.push_back(r);
    Mutate(in, {&size, &theta.dims, &grid.dims});
  } else {
    size = Dims(in, AnyRank(in));
    RandomShapes(in, {&theta, &grid});
  }
  theta.dtype = FloatDType(in);
  grid.dtype = in.Byte() < 224 ? theta.dtype : AnyDType(in);
  theta.Finish(in, 0, -1);
  grid.Finish(in, 1, 0);
  // size: exactly size.size() entries on the heap, or null.
  std::unique_ptr<int64_t[]> size_storage(new int64_t[size.size()]);
  std::copy(size.begin(), size.end(), size_storage.get());
  const int64_t* size_ptr = in.Byte() < 8 ? nullptr : size_storage.get();
  const gridsample::AffineGridOptions options{in.Flag(), {}};
  const char* names[] = {"theta", "grid"};
  const std::string what = Describe("AffineGrid", {&theta, &grid}, names) + " size " +
                           (size_ptr ? ToString(size) : std::string("null")) + " of length " +
                           std::to_string(size.size());

  std::unique_ptr<int64_t[]> out(new int64_t[size.size()]);
  const bool null_out = in.Byte() < 8;
  const Status s =
      gridsample::AffineGridOutputShape(size_ptr, size.size(), null_out ? nullptr : out.get());
  const std::string shape_problem =
      null_out ? "output pointer is null" : AffineSizeProblem(size_ptr, size.size());
  if (s.ok() != shape_problem.empty()) {
    Fail(what + ": AffineGridOutputShape " + StatusString(s) +
         ", model: " + (shape_problem.empty() ? "valid" : shape_problem));
  }
  if (s.ok() && std::vector<int64_t>(out.get(), out.get() + size.size()) !=
                    AffineGridShape(size.data(), size.size())) {
    Fail(what + ": AffineGridOutputShape gave " +
         ToString(std::vector<int64_t>(out.get(), out.get() + size.size())));
  }
  Check(what, "AffineGrid", AffineGridProblem(theta, size_ptr, size.size(), grid), m,
        {&theta, &grid}, &grid, [&] {
          return gridsample::AffineGrid(theta.View(*m), size_ptr, size.size(), grid.MutableView(*m),
                                        options);
        });
}

// WarpAffine (`warp`) or GridSampleChannelsLast: x (N, H, W, C), theta (N, 2, 3) or grid
// (N, Ho, Wo, 2), y (N, Ho, Wo, C).
void CheckChannelsLast(FuzzInput& in, Memory* m, bool warp) {
  Arg x, second, y;
  const GridSampleOptions o = AnyOptions(in);
  if (in.Byte() < 192) {
    x.dims = Dims(in, 4);
    const int64_t ho = Dim(in), wo = Dim(in);
    second.dims =
        warp ? std::vector<int64_t>{x.dims[0], 2, 3} : std::vector<int64_t>{x.dims[0], ho, wo, 2};
    y.dims = {x.dims[0], ho, wo, x.dims[3]};
    Mutate(in, {&x.dims, &second.dims, &y.dims});
  } else {
    RandomShapes(in, {&x, &second, &y});
  }
  FinishArgs(in, &x, &second, &y);
  const char* op = warp ? "WarpAffine" : "GridSampleChannelsLast";
  const char* names[] = {"X", warp ? "theta" : "grid", "Y"};
  const std::string what =
      Describe(op, {&x, &second, &y}, names) + " " + gridsample_test::Describe(o);
  const std::string problem =
      warp ? WarpAffineProblem(x, second, y, o) : ChannelsLastProblem(x, second, y, o);
  Check(what, op, problem, m, {&x, &second, &y}, &y, [&] {
    return warp ? gridsample::WarpAffine(x.View(*m), second.View(*m), y.MutableView(*m), o)
                : gridsample::GridSampleChannelsLast(x.View(*m), second.View(*m), y.MutableView(*m),
                                                     o);
  });
}

void TestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const int op = in.Below(4);
  Memory memory(in);
  switch (op) {
    case 0: CheckGridSample(in, &memory); break;
    case 1: CheckAffineGrid(in, &memory); break;
    case 2: CheckChannelsLast(in, &memory, /*warp=*/true); break;
    default: CheckChannelsLast(in, &memory, /*warp=*/false); break;
  }
}

}  // namespace
}  // namespace gridsample_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gridsample_fuzz::TestOneInput(data, size);
  return 0;
}
