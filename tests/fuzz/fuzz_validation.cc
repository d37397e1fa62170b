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

namespace gridsample_fuzz {
namespace {

// Bytes of each argument's own buffer.
constexpr size_t kBufferBytes = 4096;
constexpr uint64_t kMaxBytes = static_cast<uint64_t>(PTRDIFF_MAX);

// Sizes that break products: 0, around 2^31 and 2^32, square roots of 2^63, 2^62, 2^63 - 1,
// negatives; small sizes are drawn more often (calls that fit the buffers).
constexpr int64_t kDims[] = {0,
                             1,
                             2,
                             3,
                             4,
                             7,
                             16,
                             255,
                             65536,
                             int64_t{1} << 21,
                             (int64_t{1} << 31) - 1,
                             int64_t{1} << 31,
                             (int64_t{1} << 32) - 1,
                             int64_t{1} << 32,
                             (int64_t{1} << 32) + 1,
                             3037000499,  // floor(sqrt(2^63))
                             3037000500,
                             int64_t{1} << 40,
                             int64_t{1} << 53,
                             int64_t{1} << 61,
                             int64_t{1} << 62,
                             INT64_MAX / 3,
                             INT64_MAX / 2 + 1,
                             INT64_MAX - 1,
                             INT64_MAX,
                             -1,
                             -2,
                             -(int64_t{1} << 31),
                             -(int64_t{1} << 32),
                             INT64_MIN};

int64_t Dim(FuzzInput& in) {
  const int b = in.Byte();
  if (b < 128) return b % 6;
  if (b < 240) return in.Pick(kDims);
  return static_cast<int64_t>(in.Bits(8));
}

std::vector<int64_t> Dims(FuzzInput& in, size_t rank) {
  std::vector<int64_t> d(rank);
  for (int64_t& v : d) v = Dim(in);
  return d;
}

// A rank 0 to 10 (a few more than any call takes).
size_t AnyRank(FuzzInput& in) { return in.Below(11); }

DType AnyDType(FuzzInput& in) {
  static constexpr int kInvalid[] = {-1, 10, 11, 255, INT32_MIN, INT32_MAX};
  const int b = in.Byte();
  if (b < 232) return static_cast<DType>(b % 10);
  return static_cast<DType>(in.Pick(kInvalid));
}

DType FloatDType(FuzzInput& in) {
  const int b = in.Byte();
  return b < 224 ? gridsample_test::kGridDTypes[b % 4] : AnyDType(in);
}

GridSampleOptions AnyOptions(FuzzInput& in) {
  static constexpr int kValues[] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 3, -1, 7, INT32_MIN, INT32_MAX};
  GridSampleOptions o;
  o.mode = static_cast<Mode>(in.Pick(kValues));
  o.padding = static_cast<Padding>(in.Pick(kValues));
  o.align_corners = in.Flag();
  return o;
}

// The memory of a call: one buffer per argument (heap, so that ASan sees past its end), filled
// with a pattern; snapshots tell which bytes a call changed.
struct Memory {
  std::unique_ptr<uint8_t[]> buffer[3];
  std::vector<uint8_t> snapshot[3];

  explicit Memory(FuzzInput& in) {
    for (auto& b : buffer) {
      b.reset(new uint8_t[kBufferBytes]);
      std::memset(b.get(), in.Byte(), kBufferBytes);
    }
  }
  void Snapshot() {
    for (int i = 0; i < 3; ++i) snapshot[i].assign(buffer[i].get(), buffer[i].get() + kBufferBytes);
  }
  // First changed byte of buffer i from `from` on, or -1.
  int64_t Changed(int i, size_t from) const {
    for (size_t k = from; k < kBufferBytes; ++k) {
      if (buffer[i][k] != snapshot[i][k]) return static_cast<int64_t>(k);
    }
    return -1;
  }
};

// One tensor argument as a fuzzed caller passes it: dims of any count and value in a heap
// array of exactly that many entries (or no shape pointer), any dtype value, and data that is
// null or one of the call's buffers.
struct Arg {
  std::vector<int64_t> dims;
  bool null_shape = false;
  DType dtype = DType::kFloat32;
  int buffer = -1;  // index into Memory, -1 for a null data pointer
  std::unique_ptr<int64_t[]> shape_storage;

  // Makes the shape array and picks the data: null, buffer `own`, or buffer `alias` (if >= 0).
  void Finish(FuzzInput& in, int own, int alias) {
    shape_storage.reset(new int64_t[dims.size()]);
    std::copy(dims.begin(), dims.end(), shape_storage.get());
    null_shape = in.Byte() < 8;
    const int b = in.Byte();
    buffer = b < 12 ? -1 : (b < 28 && alias >= 0 ? alias : own);
  }
  const int64_t* shape() const { return null_shape ? nullptr : shape_storage.get(); }
  size_t rank() const { return dims.size(); }
  void* data(const Memory& m) const { return buffer < 0 ? nullptr : m.buffer[buffer].get(); }
  TensorView View(const Memory& m) const { return {data(m), dtype, shape(), rank()}; }
  MutableTensorView MutableView(const Memory& m) const { return {data(m), dtype, shape(), rank()}; }
};

// 0 to 3 edits of the shapes: a dim replaced, a dim added or removed.
void Mutate(FuzzInput& in, const std::vector<std::vector<int64_t>*>& shapes) {
  static constexpr int kEdits[] = {0, 0, 0, 1, 1, 2, 3};
  for (int e = in.Pick(kEdits); e > 0; --e) {
    std::vector<int64_t>& d = *shapes[in.Below(static_cast<int>(shapes.size()))];
    const int what = in.Below(8);
    if (what < 6 && !d.empty()) {
      d[in.Below(static_cast<int>(d.size()))] = Dim(in);
    } else if (what == 6 || d.empty()) {
      d.push_back(Dim(in));
    } else {
      d.pop_back();
    }
  }
}

// Shapes of any rank 0 to 10 for each argument.
void RandomShapes(FuzzInput& in, const std::vector<Arg*>& args) {
  for (Arg* a : args) a->dims = Dims(in, AnyRank(in));
}

// The rest of a call's three arguments X, a float tensor (grid, theta), Y: dtypes (Y mostly
// X's) and pointers (Y may alias either input's buffer, the float tensor X's).
void FinishArgs(FuzzInput& in, Arg* x, Arg* second, Arg* y) {
  x->dtype = AnyDType(in);
  second->dtype = FloatDType(in);
  y->dtype = in.Byte() < 224 ? x->dtype : AnyDType(in);
  x->Finish(in, 0, -1);
  second->Finish(in, 1, 0);
  y->Finish(in, 2, in.Flag() ? 0 : 1);
}

// --- the model: what the headers promise, written apart from the library's validation -------

size_t Bytes(DType t) { return ElementSize(t); }  // 0 outside the enum
bool IsFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 ||
         t == DType::kBFloat16;
}
bool OptionsValid(const GridSampleOptions& o) {
  const int m = static_cast<int>(o.mode), p = static_cast<int>(o.padding);
  return m >= 0 && m <= 2 && p >= 0 && p <= 2;
}

// A shape's size facts. too_large: the product of its non-zero dims times the element size
// exceeds PTRDIFF_MAX (problem/checks.cc counts a 0 as 1, so that every partial product of an empty
// tensor fits too; types.h: such a size is kOutOfRange).
struct Size {
  bool negative = false;
  bool too_large = false;
  uint64_t bytes = 0;  // exact, when neither of the above
};

Size Measure(const std::vector<int64_t>& dims, size_t elem) {
  Size s;
  uint64_t product = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0) {
      s.negative = true;
    } else if (d == 0) {
      zero = true;
    } else if (__builtin_mul_overflow(product, static_cast<uint64_t>(d), &product) ||
               product > kMaxBytes) {
      s.too_large = true;
      product = kMaxBytes;
    }
  }
  s.too_large = s.too_large || product > kMaxBytes / (elem ? elem : 1);
  s.bytes = zero || s.too_large ? 0 : product * elem;
  return s;
}

// Why an argument is unusable by itself: no shape pointer, a negative dim, too many bytes, no
// data for a non-empty tensor. Empty when fine.
std::string ArgProblem(const char* name, const Arg& a, size_t elem, bool look_at_data = true) {
  if (a.null_shape && a.rank() > 0) return std::string(name) + " has no shape pointer";
  const Size s = Measure(a.dims, elem);
  if (s.negative) return std::string(name) + " has a negative dim";
  if (s.too_large) return std::string(name) + " is too large";
  if (look_at_data && s.bytes > 0 && a.buffer < 0) return std::string(name) + " has null data";
  return "";
}

// Exact bytes of a usable argument.
uint64_t ArgBytes(const Arg& a) { return Measure(a.dims, Bytes(a.dtype)).bytes; }

// Output `y` overlaps input `x` (both non-empty, same buffer: every buffer starts at offset 0).
bool Overlap(const Arg& y, const Arg& x) {
  return y.buffer >= 0 && y.buffer == x.buffer && ArgBytes(y) > 0 && ArgBytes(x) > 0;
}

// Why the output must be rejected: wrong rank, shape, dtype; unusable; overlapping an input.
std::string OutputProblem(const char* name, const Arg& y, const std::vector<int64_t>& want,
                          DType want_dtype, const std::vector<const Arg*>& inputs) {
  if (y.rank() != want.size() || (y.null_shape && !want.empty()))
    return std::string(name) + " rank or shape pointer";
  if (y.dims != want) return std::string(name) + " shape differs from " + ToString(want);
  if (y.dtype != want_dtype) return std::string(name) + " dtype";
  std::string p = ArgProblem(name, y, Bytes(y.dtype));
  if (!p.empty()) return p;
  for (const Arg* x : inputs) {
    if (Overlap(y, *x)) return std::string(name) + " overlaps an input";
  }
  return "";
}

bool Empty(const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d == 0) return true;
  }
  return false;
}

// GridSample (or, with `shapes_only`, GridSampleOutputShape: dtypes and data not looked at).
std::string GridSampleProblem(const Arg& x, const Arg& grid, const Arg* y,
                              const GridSampleOptions& o, bool shapes_only) {
  if (!shapes_only && !OptionsValid(o)) return "invalid mode or padding";
  if (x.rank() < 3 || x.rank() > 2 + gridsample::kMaxSpatialRank) return "X rank";
  const size_t ex = shapes_only ? 1 : Bytes(x.dtype), eg = shapes_only ? 1 : Bytes(grid.dtype);
  if (ex == 0) return "X dtype";
  std::string p = ArgProblem("X", x, ex, !shapes_only);
  if (!p.empty()) return p;
  if (grid.rank() != x.rank()) return "grid rank";
  if (!shapes_only && !IsFloat(grid.dtype)) return "grid dtype";
  p = ArgProblem("grid", grid, eg, !shapes_only);
  if (!p.empty()) return p;
  const int64_t r = static_cast<int64_t>(x.rank()) - 2;
  if (grid.dims.back() != r) return "grid's last dim is not r";
  if (grid.dims[0] != x.dims[0]) return "grid's N differs from X's";
  std::vector<int64_t> y_shape = {x.dims[0], x.dims[1]};
  y_shape.insert(y_shape.end(), grid.dims.begin() + 1, grid.dims.end() - 1);
  const Size ys = Measure(y_shape, ex);
  if (ys.too_large) return "Y is too large";
  if (!Empty(y_shape) && Empty(x.dims)) return "X is empty, Y is not";
  if (y) return OutputProblem("Y", *y, y_shape, x.dtype, {&x, &grid});
  return "";
}

std::vector<int64_t> AffineGridShape(const int64_t* size, size_t len) {
  std::vector<int64_t> g = {size[0]};
  g.insert(g.end(), size + 2, size + len);
  g.push_back(static_cast<int64_t>(len) - 2);
  return g;
}

// AffineGridOutputShape(size, len, out): its own checks only.
std::string AffineSizeProblem(const int64_t* size, size_t len) {
  if (size == nullptr) return "size pointer is null";
  if (len != 4 && len != 5) return "size length";
  for (size_t i = 0; i < len; ++i) {
    if (size[i] < 0) return "negative size";
  }
  return "";
}

std::string AffineGridProblem(const Arg& theta, const int64_t* size, size_t len, const Arg& grid) {
  std::string p = AffineSizeProblem(size, len);
  if (!p.empty()) return p;
  if (!IsFloat(theta.dtype)) return "theta dtype";
  p = ArgProblem("theta", theta, Bytes(theta.dtype));
  if (!p.empty()) return p;
  const int64_t r = static_cast<int64_t>(len) - 2;
  if (theta.dims != std::vector<int64_t>{size[0], r, r + 1}) return "theta shape";
  const std::vector<int64_t> g = AffineGridShape(size, len);
  if (Measure(g, Bytes(theta.dtype)).too_large) return "grid is too large";
  return OutputProblem("grid", grid, g, theta.dtype, {&theta});
}

// X (N, H, W, C) of a channels-last call.
std::string ChannelsLastXProblem(const Arg& x) {
  if (x.rank() != 4) return "X rank";
  if (Bytes(x.dtype) == 0) return "X dtype";
  return ArgProblem("X", x, Bytes(x.dtype));
}

// Y (N, Ho, Wo, C) of a channels-last call, given the Ho and Wo it must have.
std::string ChannelsLastYProblem(const Arg& x, const Arg& y, int64_t ho, int64_t wo,
                                 const Arg& other) {
  const std::vector<int64_t> y_shape = {x.dims[0], ho, wo, x.dims[3]};
  if (Measure(y_shape, Bytes(x.dtype)).too_large) return "Y is too large";
  if (!Empty(y_shape) && Empty(x.dims)) return "X is empty, Y is not";
  return OutputProblem("Y", y, y_shape, x.dtype, {&x, &other});
}

std::string WarpAffineProblem(const Arg& x, const Arg& theta, const Arg& y,
                              const GridSampleOptions& o) {
  if (!OptionsValid(o)) return "invalid mode or padding";
  std::string p = ChannelsLastXProblem(x);
  if (!p.empty()) return p;
  if (theta.dtype != DType::kFloat32 && theta.dtype != DType::kFloat64) return "theta dtype";
  p = ArgProblem("theta", theta, Bytes(theta.dtype));
  if (!p.empty()) return p;
  if (theta.dims != std::vector<int64_t>{x.dims[0], 2, 3}) return "theta shape";
  if (y.rank() != 4 || y.null_shape) return "Y rank or shape pointer";
  if (y.dims[1] < 0 || y.dims[2] < 0) return "Y has a negative size";
  return ChannelsLastYProblem(x, y, y.dims[1], y.dims[2], theta);
}

std::string ChannelsLastProblem(const Arg& x, const Arg& grid, const Arg& y,
                                const GridSampleOptions& o) {
  if (!OptionsValid(o)) return "invalid mode or padding";
  std::string p = ChannelsLastXProblem(x);
  if (!p.empty()) return p;
  if (!IsFloat(grid.dtype)) return "grid dtype";
  p = ArgProblem("grid", grid, Bytes(grid.dtype));
  if (!p.empty()) return p;
  if (grid.rank() != 4 || grid.dims[3] != 2) return "grid shape";
  if (grid.dims[0] != x.dims[0]) return "grid's N differs from X's";
  return ChannelsLastYProblem(x, y, grid.dims[1], grid.dims[2], grid);
}

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
