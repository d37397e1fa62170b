// The checks every operator's validation (api/*.cc) is made of: tensors, outputs, options, fill
// and output rows. Every message names the operator, the argument, the expectation and what was
// given; the JS package shows them as they are.
#ifndef GRIDSAMPLE_PROBLEM_CHECKS_H_
#define GRIDSAMPLE_PROBLEM_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "gridsample/grid_sample.h"
#include "gridsample/warp_affine.h"
#include "problem/geometry.h"

namespace gridsample {

// "[2, 3, 4]".
std::string ShapeString(const int64_t* shape, size_t rank);

// A dtype's name, or what an integer outside the enum holds.
std::string DTypeString(DType dtype);

// InvalidArgument "<op>: <what>".
Status Invalid(const char* op, const std::string& what);

// What an operator's shape rule looks at: shapes and dtypes (a call's tensors, and the queries
// the JS package sizes an output with), or shapes alone (GridSampleOutputShape, whose dtypes
// grid_sample.h says are not looked at). Data pointers come after the rule (CheckData).
enum class Given { kShapes, kShapesAndDTypes };

// The product of `dims` (the tensor's element count) without overflow of int64 or the address
// space at `elem_size` bytes each. Zero dims count as 1 for the check, so that every partial
// product (strides, per-axis counts) of even an empty tensor fits in int64.
Status CountElements(const char* op, const char* name, const int64_t* dims, size_t rank,
                     size_t elem_size, int64_t* count);

// An input tensor named `name` as far as `kGiven` shows it: a shape pointer and dims >= 0; a
// known dtype, and its element count at that dtype's size (1 byte each when only shapes are
// given).
template <Given kGiven>
Status CheckInput(const char* op, const char* name, const TensorView& t, int64_t* count);

// A data pointer for a tensor with elements (after its shape rule).
Status CheckData(const char* op, const char* name, const TensorView& t);

// The element count of a tensor CheckInput has passed.
int64_t ElementCount(const TensorView& t);

// A dtype of coordinates or matrices: float32, float64, float16 or bfloat16.
Status CheckFloatDType(const char* op, const char* name, DType dtype);

// An input the output must not overlap, with its element count.
struct Input {
  TensorView view;
  int64_t count;
};

// The output tensor has the expected shape and dtype, is usable and overlaps no input.
Status CheckOutput(const char* op, const char* name, const MutableTensorView& out, DType want_dtype,
                   const int64_t* want_shape, size_t want_rank,
                   std::initializer_list<Input> inputs);

// The output's shape `y_shape` (X's rank) fits at `elem_size` bytes an element, and X, of
// `x_count` elements, is not empty when the output is not: "X: <an_axis> is 0 in shape ..."
// (an_axis: "a dimension", "a spatial dimension").
Status CheckOutputSize(const char* op, const char* an_axis, const TensorView& x, int64_t x_count,
                       const int64_t* y_shape, size_t elem_size);

// Mode and padding hold values of their enums (a cast integer may not), threads as
// ValidateThreads; messages start with `op`.
Status ValidateGridSampleOptions(const GridSampleOptions& options, const char* op = "GridSample");

// A thread count of 0 or more; a host only with its parallel-for.
Status ValidateThreads(const Threads& threads, const char* op);

// The image warps' fill (warp_affine.h): null, or with zeros padding `channels` finite values
// that X's compute type holds.
Status ValidateFill(const GridSampleOptions& options, const double* fill, DType x, int64_t channels,
                    const char* op);

// A band of a warp's output (WarpAffineRows, WarpPerspectiveRows): `rows` placing Y, whose rows
// `geometry` holds, in an output rows.height high; updates out_h and row0.
Status ValidateOutputRows(const char* op, const OutputRows& rows, ChannelsLastGeometry* geometry);

}  // namespace gridsample

#endif  // GRIDSAMPLE_PROBLEM_CHECKS_H_
