// The shape queries the JS package sizes an output with before a call (api/validation.h),
// checked against the call itself: the same rule, the same message.
#ifndef GRIDSAMPLE_TESTS_NATIVE_SHAPE_QUERY_H_
#define GRIDSAMPLE_TESTS_NATIVE_SHAPE_QUERY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "api/validation.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {

using ShapeQuery = Status (*)(const TensorView&, const TensorView&, int64_t*);

// `query` asked about the inputs x and coords of a call that returned `call`, without their
// data: when the call refused one of `inputs` (the message's argument after "<op>: "), the
// call's own message; otherwise the call's output shape `y_shape` (rank 4).
inline void ExpectQueryAgrees(ShapeQuery query, const std::string& op,
                              const std::vector<std::string>& inputs, TensorView x,
                              TensorView coords, const Status& call,
                              const std::vector<int64_t>& y_shape) {
  x.data = nullptr;
  coords.data = nullptr;
  int64_t shape[4] = {-1, -1, -1, -1};
  const Status q = query(x, coords, shape);
  bool refused_input = false;
  for (const std::string& name : inputs) {
    refused_input |= !call.ok() && call.message().rfind(op + ": " + name, 0) == 0 &&
                     call.message().find("data pointer is null") == std::string::npos;
  }
  if (refused_input) {
    EXPECT_EQ(q.message(), call.message());
    return;
  }
  ASSERT_TRUE(q.ok()) << op << " query refused what the call took: " << q.message();
  EXPECT_EQ(std::vector<int64_t>(shape, shape + 4), y_shape) << op;
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_SHAPE_QUERY_H_
