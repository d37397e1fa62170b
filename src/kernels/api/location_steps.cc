// The locations' arithmetic of a fused deformable attention (api/location_steps.h): each step in
// memory order, a block of the innermost axes at a time, the operand's values of a block gathered
// once per block (once in all where only a broadcast axis moves them), so that the op runs over
// two contiguous arrays, which the compiler vectorises.
#include "api/location_steps.h"

#include <string>
#include <vector>

#include "problem/checks.h"

namespace gridsample {
namespace {

// The most elements of a block gathered through a table.
constexpr int64_t kBlock = 2048;

// One axis of acc, innermost first: its size and the operand's stride along it (0 where broadcast).
struct Axis {
  int64_t n, os;
};

// acc op v, one float32 rounding (the ONNX node's): K 0 Mul, 1 Div, 2 Add, 3 Sub, 4 v / acc,
// 5 v - acc.
template <int K>
inline float Op(float a, float v) {
  if constexpr (K == 0) return a * v;
  if constexpr (K == 1) return a / v;
  if constexpr (K == 2) return a + v;
  if constexpr (K == 3) return a - v;
  if constexpr (K == 4) return v / a;
  return v - a;
}

// One vector at a time, not unrolled (clang; in wasm 1.3x faster and 1 KB smaller than its own
// choice); other compilers choose.
#if defined(__clang__)
#define GRIDSAMPLE_VECTOR_LOOP _Pragma("clang loop vectorize(enable) interleave_count(1)")
#else
#define GRIDSAMPLE_VECTOR_LOOP
#endif

// The op over a run: acc[i] op v[i] (Over), or acc[i] op v (OverOne).
template <int K>
void Over(float* __restrict acc, const float* __restrict v, int64_t n) {
  GRIDSAMPLE_VECTOR_LOOP
  for (int64_t i = 0; i < n; ++i) acc[i] = Op<K>(acc[i], v[i]);
}
template <int K>
void OverOne(float* __restrict acc, const float* __restrict v, int64_t n) {
  const float one = *v;
  GRIDSAMPLE_VECTOR_LOOP
  for (int64_t i = 0; i < n; ++i) acc[i] = Op<K>(acc[i], one);
}
using Run = void (*)(float*, const float*, int64_t);
constexpr Run kOver[] = {Over<0>, Over<1>, Over<2>, Over<3>, Over<4>, Over<5>};
constexpr Run kOverOne[] = {OverOne<0>, OverOne<1>, OverOne<2>, OverOne<3>, OverOne<4>, OverOne<5>};

// The walk over acc (total elements) by `axes` with the op of code `kind`: the first `k` axes a
// block of `block` elements (the operand's offset of each in `table`; none where k is 1, the
// operand's stride then 0 or 1), an odometer over the rest.
void Walk(int kind, float* acc, int64_t total, const float* operand, const std::vector<Axis>& axes,
          size_t k, int64_t block, const std::vector<int64_t>& table) {
  std::vector<float> values(k > 1 ? static_cast<size_t>(block) : 0);
  std::vector<int64_t> at(axes.size(), 0);
  int64_t o = 0;
  int64_t gathered = -1;
  for (int64_t a = 0; a < total; a += block) {
    if (k == 1) {
      (axes[0].os == 0 ? kOverOne : kOver)[kind](acc + a, operand + o, block);
    } else {
      if (o != gathered) {
        for (int64_t j = 0; j < block; ++j) values[j] = operand[o + table[j]];
        gathered = o;
      }
      kOver[kind](acc + a, values.data(), block);
    }
    for (size_t x = k; x < axes.size(); ++x) {
      o += axes[x].os;
      if (++at[x] < axes[x].n) break;
      o -= axes[x].os * axes[x].n;
      at[x] = 0;
    }
  }
}

const char* OpName(LocationOp op) {
  switch (op) {
    case LocationOp::kMul: return "Mul";
    case LocationOp::kDiv: return "Div";
    case LocationOp::kAdd: return "Add";
    case LocationOp::kSub: return "Sub";
  }
  return "an unknown operator";
}

}  // namespace

Status ApplyLocationStep(float* acc, const int64_t* dims, size_t rank, const LocationStep& step,
                         int index) {
  const size_t r = step.rank;
  bool fits = r <= rank && (r == 0 || step.dims != nullptr);
  for (size_t i = 0; fits && i < r; ++i) {
    const int64_t d = step.dims[i];
    fits = d == 1 || d == dims[rank - r + i];
  }
  if (!fits) {
    return Status::InvalidArgument(
        "operand " + std::to_string(index) + " of the locations' arithmetic (" + OpName(step.op) +
        ") is " + (step.dims != nullptr ? ShapeString(step.dims, r) : std::string("unknown")) +
        ", which does not broadcast into the sampling offsets' " + ShapeString(dims, rank));
  }
  int64_t total = 1;
  for (size_t i = 0; i < rank; ++i) total *= dims[i];
  if (total == 0) return Status::Ok();
  if (acc == nullptr || step.operand == nullptr) {
    return Status::InvalidArgument("the locations' arithmetic: a null pointer");
  }
  // acc's axes innermost first, neighbours merged where the operand's strides walk both as one.
  std::vector<Axis> axes;
  for (size_t i = rank, os = 1; i-- > 0;) {
    const bool held = i + r >= rank && step.dims[i + r - rank] != 1;
    const Axis x{dims[i], held ? static_cast<int64_t>(os) : 0};
    if (!axes.empty() && x.os == axes.back().os * axes.back().n) {
      axes.back().n *= x.n;
    } else if (x.n > 1) {
      axes.push_back(x);
    }
    if (i + r >= rank) os *= static_cast<size_t>(step.dims[i + r - rank]);
  }
  if (axes.empty()) axes.push_back({1, 0});
  // The block: the innermost axis whole, then whole axes while it holds at most kBlock.
  size_t k = 1;
  int64_t block = axes[0].n;
  while (k < axes.size() && block * axes[k].n <= kBlock) block *= axes[k++].n;
  std::vector<int64_t> table;
  if (k > 1) {
    table.assign(static_cast<size_t>(block), 0);
    int64_t size = 1;
    for (size_t x = 0; x < k; ++x) {
      for (int64_t j = size; j < size * axes[x].n; ++j)
        table[j] = table[j % size] + (j / size) * axes[x].os;
      size *= axes[x].n;
    }
  }
  // Op's codes: Mul, Div, Add, Sub, then Div and Sub with the operand first.
  const bool first = step.operand_first;
  int kind = 0;
  switch (step.op) {
    case LocationOp::kMul: kind = 0; break;
    case LocationOp::kDiv: kind = first ? 4 : 1; break;
    case LocationOp::kAdd: kind = 2; break;
    case LocationOp::kSub: kind = first ? 5 : 3; break;
    default: return Status::InvalidArgument("the locations' arithmetic: an unknown operator");
  }
  Walk(kind, acc, total, step.operand, axes, k, block, table);
  return Status::Ok();
}

}  // namespace gridsample
