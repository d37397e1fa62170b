// The fused attention's locations' arithmetic (api/location_steps.h) against a direct oracle:
// every element's operand found by its own multi-index (numpy's broadcasting rule written out),
// the float32 op applied once; special values, blocks past the gathered block's size, size-1 and
// empty axes, and the errors.
#include "api/location_steps.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace gridsample_test {
namespace {

using gridsample::ApplyLocationStep;
using gridsample::LocationOp;
using gridsample::LocationStep;

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// acc op operand (operand op acc where `first`) for every element, its operand index from its
// multi-index: trailing axes aligned, an operand axis of size 1 read at 0.
std::vector<float> Oracle(std::vector<float> acc, const std::vector<int64_t>& dims, LocationOp op,
                          bool first, const std::vector<float>& operand,
                          const std::vector<int64_t>& od) {
  const size_t r = dims.size();
  for (int64_t i = 0; i < static_cast<int64_t>(acc.size()); ++i) {
    int64_t rest = i;
    int64_t o = 0;
    int64_t stride = 1;
    for (size_t a = r; a-- > 0;) {
      const int64_t index = rest % dims[a];
      rest /= dims[a];
      if (a + od.size() >= r) {
        const int64_t d = od[a + od.size() - r];
        if (d != 1) o += index * stride;
        stride *= d;
      }
    }
    const float v = operand[static_cast<size_t>(o)];
    float& x = acc[static_cast<size_t>(i)];
    switch (op) {
      case LocationOp::kMul: x = x * v; break;
      case LocationOp::kDiv: x = first ? v / x : x / v; break;
      case LocationOp::kAdd: x = x + v; break;
      case LocationOp::kSub: x = first ? v - x : x - v; break;
    }
  }
  return acc;
}

bool SameBits(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(float)) == 0;
}

std::vector<float> Values(size_t n, uint32_t seed) {
  static const float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(),
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   0.0f,
                                   -0.0f,
                                   1e-40f,
                                   -1e-45f,
                                   3e38f,
                                   -3.4e38f,
                                   1.0f,
                                   0.1f,
                                   16777217.0f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = i % 3 == 0 ? kSpecial[rng() % (sizeof(kSpecial) / sizeof(kSpecial[0]))] : u(rng);
  }
  return v;
}

struct Case {
  std::vector<int64_t> dims, od;
};

TEST(LocationSteps, EveryOpBothWaysOnEveryBroadcastEqualsTheDirectOracleBitForBit) {
  const Case cases[] = {
      {{1, 300, 8, 12, 2}, {12, 1}},               // D-FINE's point scale
      {{1, 300, 8, 12, 2}, {1, 300, 1, 1, 2}},     // the reference boxes' size and centre
      {{1, 300, 8, 12, 2}, {}},                    // 0.5
      {{2, 50, 8, 4, 4, 2}, {1, 1, 1, 4, 1, 2}},   // Deformable DETR's offset normaliser
      {{2, 50, 8, 4, 4, 2}, {2, 50, 1, 1, 1, 2}},  // its reference points
      {{3, 5, 7}, {3, 5, 7}},                      // the offsets' own shape
      {{3, 1, 7}, {1, 7}},                         // a size-1 axis of the offsets
      {{5000, 3}, {5000, 1}},                      // blocks past the gathered size
      {{4, 3000}, {4, 1}},                         // a first axis past it, a scalar per block
      {{4, 3000}, {3000}},                         // a first axis past it, a vector
      {{2, 3, 2, 3}, {3, 1, 3}},                   // broadcast axes between held ones
  };
  const LocationOp ops[] = {LocationOp::kMul, LocationOp::kDiv, LocationOp::kAdd, LocationOp::kSub};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const std::vector<float> offsets = Values(static_cast<size_t>(Count(c.dims)), seed++);
    const std::vector<float> operand = Values(static_cast<size_t>(Count(c.od)), seed++);
    for (LocationOp op : ops) {
      for (bool first : {false, true}) {
        std::vector<float> got = offsets;
        LocationStep step;
        step.op = op;
        step.operand_first = first;
        step.operand = operand.data();
        step.dims = c.od.data();
        step.rank = c.od.size();
        const gridsample::Status s =
            ApplyLocationStep(got.data(), c.dims.data(), c.dims.size(), step, 1);
        ASSERT_TRUE(s.ok()) << s.message();
        const std::vector<float> want = Oracle(offsets, c.dims, op, first, operand, c.od);
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_TRUE(SameBits(got[i], want[i]))
              << "op " << static_cast<int>(op) << " first " << first << " dims rank "
              << c.dims.size() << " operand rank " << c.od.size() << " [" << i << "]: " << got[i]
              << " vs " << want[i];
        }
      }
    }
  }
}

TEST(LocationSteps, AnOperandThatDoesNotBroadcastIsRefusedWithAccUntouched) {
  const std::vector<int64_t> dims = {2, 3, 4, 2};
  const std::vector<float> offsets = Values(48, 7);
  const std::vector<float> operand(64, 1.0f);
  const std::vector<std::vector<int64_t>> bad = {
      {3}, {4, 2, 2}, {1, 2, 3, 4, 2}, {2, 1, 4, 1, 1}, {0}};
  for (const std::vector<int64_t>& od : bad) {
    std::vector<float> got = offsets;
    LocationStep step;
    step.op = LocationOp::kSub;
    step.operand = operand.data();
    step.dims = od.data();
    step.rank = od.size();
    const gridsample::Status s = ApplyLocationStep(got.data(), dims.data(), dims.size(), step, 2);
    ASSERT_FALSE(s.ok());
    std::string shape = "[";
    for (size_t i = 0; i < od.size(); ++i) shape += (i ? ", " : "") + std::to_string(od[i]);
    EXPECT_EQ(s.message(),
              "operand 2 of the locations' arithmetic (Sub) is " + shape +
                  "], which does not broadcast into the sampling offsets' [2, 3, 4, 2]");
    for (size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(SameBits(got[i], offsets[i]));
  }
}

TEST(LocationSteps, EmptyOffsetsReadNothingAndNullPointersWithElementsAreRefused) {
  const std::vector<int64_t> empty = {2, 0, 4, 2};
  const std::vector<int64_t> od = {4, 1};
  LocationStep step;
  step.dims = od.data();
  step.rank = od.size();
  // No element: neither pointer is read.
  EXPECT_TRUE(ApplyLocationStep(nullptr, empty.data(), empty.size(), step, 1).ok());
  const std::vector<int64_t> dims = {4, 2};
  std::vector<float> acc(8, 1.0f);
  const gridsample::Status s = ApplyLocationStep(acc.data(), dims.data(), dims.size(), step, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "the locations' arithmetic: a null pointer");
  const std::vector<float> operand(4, 2.0f);
  step.operand = operand.data();
  step.op = static_cast<LocationOp>(9);
  const gridsample::Status unknown =
      ApplyLocationStep(acc.data(), dims.data(), dims.size(), step, 1);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.message(), "the locations' arithmetic: an unknown operator");
}

}  // namespace
}  // namespace gridsample_test
