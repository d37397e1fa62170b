// Replays every golden case in tests/cases through the public API and the scalar reference.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "case_loader.h"

namespace gridsample {
namespace conformance {
namespace {

constexpr const char* kCasesDir = GRIDSAMPLE_CASES_DIR;
// What /work/shared/conformance ships. Checked on top of index.json so that a copy
// that lost files *and* a matching stretch of its index still cannot pass.
constexpr size_t kGoldenCaseCount = 521;

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::string error;
  // An unreadable directory yields no parameters; GoldenCaseDirectory reports it.
  if (!ListCases(kCasesDir, &names, &error)) names.clear();
  return names;
}

std::string SanitizedName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  bool changed = name.empty();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') {
      ch = '_';
      changed = true;
    }
  }
  // Names that had to change get their index so two of them can never collide.
  if (changed) name += "_" + std::to_string(info.index);
  return name;
}

class GoldenCaseTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenCaseTest, MatchesExpected) {
  Case c;
  std::string error;
  ASSERT_TRUE(LoadCase(kCasesDir, GetParam(), &c, &error)) << GetParam() << ": " << error;
  for (const Implementation& impl : {PublicImplementation(), ReferenceImplementation()}) {
    const CaseResult r = RunCase(c, impl);
    EXPECT_TRUE(r.passed) << DescribeResult(r) << " (SIMD target " << ActiveTarget() << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenCaseTest, ::testing::ValuesIn(CaseNames()), SanitizedName);

TEST(GoldenCaseDirectory, HoldsExactlyTheIndexedCases) {
  std::ifstream in(std::string(kCasesDir) + "/index.json");
  ASSERT_TRUE(in) << "cannot open " << kCasesDir << "/index.json";
  const nlohmann::json index = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(index.is_discarded()) << "index.json is not valid JSON";
  ASSERT_TRUE(index.contains("cases") && index["cases"].is_array());

  std::set<std::string> indexed;
  for (const nlohmann::json& entry : index["cases"]) {
    indexed.insert(entry.at("name").get<std::string>());
  }
  EXPECT_EQ(indexed.size(), index["cases"].size()) << "index.json lists a name twice";
  EXPECT_EQ(indexed.size(), kGoldenCaseCount);

  size_t category_total = 0;
  for (const auto& [id, category] : index.at("categories").items()) {
    category_total += category.at("count").get<size_t>();
  }
  EXPECT_EQ(category_total, indexed.size()) << "index.json category counts disagree with its cases";

  std::vector<std::string> listed;
  std::string error;
  ASSERT_TRUE(ListCases(kCasesDir, &listed, &error)) << error;
  EXPECT_EQ(listed.size(), indexed.size());
  const std::set<std::string> present(listed.begin(), listed.end());
  for (const std::string& name : indexed) {
    EXPECT_TRUE(present.count(name)) << name << " is in index.json but not in " << kCasesDir;
  }
  for (const std::string& name : present) {
    EXPECT_TRUE(indexed.count(name)) << name << ".json is in " << kCasesDir << " but not indexed";
  }
}

// --- The loader must be able to fail: checks with a stand-in implementation. ---

// Writes `c.expected` (optionally altered by `edit`) as the output, without the library.
Implementation Echo(const Case& c, std::function<void(void* y, size_t bytes)> edit = nullptr) {
  auto fill = [&c, edit](const MutableTensorView& y) {
    const size_t bytes = c.expected.element_count * DTypeSize(y.dtype);
    if (bytes) std::memcpy(y.data, c.expected.storage.data(), bytes);
    if (edit) edit(y.data, bytes);
    return Status::Ok();
  };
  Implementation impl;
  impl.name = "echo";
  impl.grid_sample = [fill](const TensorView&, const TensorView&, const MutableTensorView& y,
                            const GridSampleOptions&) { return fill(y); };
  impl.affine_grid = [fill](const TensorView&, const int64_t*, size_t, const MutableTensorView& y,
                            const AffineGridOptions&) { return fill(y); };
  return impl;
}

Case MustLoad(const std::string& name) {
  Case c;
  std::string error;
  EXPECT_TRUE(LoadCase(kCasesDir, name, &c, &error)) << name << ": " << error;
  return c;
}

void SetFloat(void* y, size_t i, float v) {
  std::memcpy(static_cast<unsigned char*>(y) + i * sizeof(float), &v, sizeof v);
}

TEST(GoldenCaseLoader, ExactMatchPassesAndToleranceIsHonoured) {
  const Case c = MustLoad("gs2d_linear_zeros_ac0_rand");
  ASSERT_GT(c.expected.element_count, 10u);
  ASSERT_GT(c.atol, 0.0);
  EXPECT_TRUE(RunCase(c, Echo(c)).passed);

  const size_t i = 7;
  const float want = static_cast<float>(c.expected.At(i));
  const float half_atol = static_cast<float>(c.atol * 0.5);
  const CaseResult inside =
      RunCase(c, Echo(c, [&](void* y, size_t) { SetFloat(y, i, want + half_atol); }));
  EXPECT_TRUE(inside.passed) << DescribeResult(inside);

  const CaseResult outside = RunCase(
      c, Echo(c, [&](void* y, size_t) { SetFloat(y, i, want + static_cast<float>(c.atol * 3)); }));
  EXPECT_FALSE(outside.passed);
  EXPECT_EQ(outside.worst_flat_index, static_cast<int64_t>(i));
  EXPECT_EQ(outside.worst_index.size(), c.expected.shape.size());
  EXPECT_NEAR(outside.max_abs_error, c.atol * 3, c.atol * 0.1);
  EXPECT_EQ(outside.expected, c.expected.At(i));
}

TEST(GoldenCaseLoader, NanUnwrittenAndErrorStatusFail) {
  const Case c = MustLoad("gs2d_linear_zeros_ac0_rand");
  const CaseResult nan = RunCase(
      c, Echo(c, [](void* y, size_t) { SetFloat(y, 3, std::numeric_limits<float>::quiet_NaN()); }));
  EXPECT_FALSE(nan.passed);
  EXPECT_EQ(nan.worst_flat_index, 3);

  Implementation nothing = Echo(c);
  nothing.grid_sample = [](const TensorView&, const TensorView&, const MutableTensorView&,
                           const GridSampleOptions&) { return Status::Ok(); };
  EXPECT_FALSE(RunCase(c, nothing).passed);

  Implementation refuses = Echo(c);
  refuses.grid_sample = [](const TensorView&, const TensorView&, const MutableTensorView&,
                           const GridSampleOptions&) { return Status::InvalidArgument("no"); };
  const CaseResult refused = RunCase(c, refuses);
  EXPECT_FALSE(refused.passed);
  EXPECT_NE(refused.error.find("InvalidArgument"), std::string::npos) << refused.error;
}

TEST(GoldenCaseLoader, WriteBeyondTheOutputFails) {
  const Case c = MustLoad("gs2d_linear_zeros_ac0_rand");
  // One float past the end lands in the loader's guard band, not outside the allocation.
  const CaseResult r = RunCase(c, Echo(c, [](void* y, size_t bytes) {
                                 std::memset(static_cast<unsigned char*>(y) + bytes, 0, 4);
                               }));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.error.find("outside the output"), std::string::npos) << r.error;
}

TEST(GoldenCaseLoader, IntegerOutputLeftUnwrittenFails) {
  const Case c = MustLoad("u8_gs1d_cubic_border_ac0_rand");
  ASSERT_EQ(c.expected.dtype, FileDType::kUint8);
  EXPECT_TRUE(RunCase(c, Echo(c)).passed);
  Implementation partial = Echo(c);
  partial.grid_sample = [&c](const TensorView&, const TensorView&, const MutableTensorView& y,
                             const GridSampleOptions&) {
    // All but the last element: the fill byte decides that one.
    std::memcpy(y.data, c.expected.storage.data(), c.expected.element_count - 1);
    return Status::Ok();
  };
  EXPECT_FALSE(RunCase(c, partial).passed);
}

TEST(GoldenCaseLoader, RangeOnlyCheck) {
  const Case c = MustLoad("huge_gs1d_linear_reflection_ac0");
  ASSERT_TRUE(c.range_only);
  const float hi = static_cast<float>(c.range_hi[0][0]);
  const float lo = static_cast<float>(c.range_lo[0][0]);
  auto constant = [&](float v) {
    return Echo(c, [v](void* y, size_t bytes) {
      for (size_t i = 0; i < bytes / sizeof(float); ++i) SetFloat(y, i, v);
    });
  };
  EXPECT_TRUE(RunCase(c, constant(0.5f * (lo + hi))).passed);
  EXPECT_FALSE(RunCase(c, constant(hi + static_cast<float>(4 * c.range_atol) + 0.01f)).passed);
  EXPECT_FALSE(RunCase(c, constant(lo - static_cast<float>(4 * c.range_atol) - 0.01f)).passed);
  EXPECT_FALSE(RunCase(c, constant(std::numeric_limits<float>::infinity())).passed);
}

TEST(GoldenCaseLoader, AffineGridSizeAndShape) {
  Case c = MustLoad("ag2d_ac0_basic");
  EXPECT_EQ(c.size, (std::vector<int64_t>{1, 3, 4, 5}));
  EXPECT_TRUE(RunCase(c, Echo(c)).passed);
  // A wrong expected shape is caught by the library's own shape query.
  c.expected.shape.back() = 3;
  EXPECT_FALSE(RunCase(c, Echo(c)).passed);
}

TEST(GoldenCaseLoader, MissingInputsAreErrorsNotSkips) {
  std::vector<std::string> names;
  std::string error;
  EXPECT_FALSE(ListCases(std::string(kCasesDir) + "/no_such_dir", &names, &error));
  EXPECT_FALSE(error.empty());
  const CaseResult r = LoadAndRunCase(kCasesDir, "no_such_case", PublicImplementation());
  EXPECT_FALSE(r.passed);
  EXPECT_FALSE(r.error.empty());
}

}  // namespace
}  // namespace conformance
}  // namespace gridsample
