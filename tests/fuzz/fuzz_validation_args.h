// Arguments of fuzz_validation's calls: hostile dims, ranks, dtypes and options, their buffers.
//
// Memory holds one heap buffer per argument; Arg is one tensor argument as a fuzzed caller
// passes it.
#ifndef GRIDSAMPLE_TESTS_FUZZ_FUZZ_VALIDATION_ARGS_H_
#define GRIDSAMPLE_TESTS_FUZZ_FUZZ_VALIDATION_ARGS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_input.h"

namespace gridsample_fuzz {

// Bytes of each argument's own buffer.
inline constexpr size_t kBufferBytes = 4096;
inline constexpr uint64_t kMaxBytes = static_cast<uint64_t>(PTRDIFF_MAX);

// Sizes that break products: 0, around 2^31 and 2^32, square roots of 2^63, 2^62, 2^63 - 1,
// negatives; small sizes are drawn more often (calls that fit the buffers).
inline constexpr int64_t kDims[] = {0,
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

inline int64_t Dim(FuzzInput& in) {
  const int b = in.Byte();
  if (b < 128) return b % 6;
  if (b < 240) return in.Pick(kDims);
  return static_cast<int64_t>(in.Bits(8));
}

inline std::vector<int64_t> Dims(FuzzInput& in, size_t rank) {
  std::vector<int64_t> d(rank);
  for (int64_t& v : d) v = Dim(in);
  return d;
}

// A rank 0 to 10 (a few more than any call takes).
inline size_t AnyRank(FuzzInput& in) { return in.Below(11); }

inline DType AnyDType(FuzzInput& in) {
  static constexpr int kInvalid[] = {-1, 10, 11, 255, INT32_MIN, INT32_MAX};
  const int b = in.Byte();
  if (b < 232) return static_cast<DType>(b % 10);
  return static_cast<DType>(in.Pick(kInvalid));
}

inline DType FloatDType(FuzzInput& in) {
  const int b = in.Byte();
  return b < 224 ? gridsample_test::kGridDTypes[b % 4] : AnyDType(in);
}

inline GridSampleOptions AnyOptions(FuzzInput& in) {
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
inline void Mutate(FuzzInput& in, const std::vector<std::vector<int64_t>*>& shapes) {
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
inline void RandomShapes(FuzzInput& in, const std::vector<Arg*>& args) {
  for (Arg* a : args) a->dims = Dims(in, AnyRank(in));
}

// The rest of a call's three arguments X, a float tensor (grid, theta), Y: dtypes (Y mostly
// X's) and pointers (Y may alias either input's buffer, the float tensor X's).
inline void FinishArgs(FuzzInput& in, Arg* x, Arg* second, Arg* y) {
  x->dtype = AnyDType(in);
  second->dtype = FloatDType(in);
  y->dtype = in.Byte() < 224 ? x->dtype : AnyDType(in);
  x->Finish(in, 0, -1);
  second->Finish(in, 1, 0);
  y->Finish(in, 2, in.Flag() ? 0 : 1);
}

}  // namespace gridsample_fuzz

#endif  // GRIDSAMPLE_TESTS_FUZZ_FUZZ_VALIDATION_ARGS_H_
