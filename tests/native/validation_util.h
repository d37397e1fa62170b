// Helpers of the validation tests: the error-message checks and sentinel-filled buffers.
#ifndef GRIDSAMPLE_TESTS_NATIVE_VALIDATION_UTIL_H_
#define GRIDSAMPLE_TESTS_NATIVE_VALIDATION_UTIL_H_

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"

namespace gridsample_test {

inline constexpr uint8_t kSentinel = 0xAB;
inline constexpr int64_t k2Pow20 = int64_t{1} << 20;
inline constexpr int64_t k2Pow30 = int64_t{1} << 30;
inline constexpr int64_t k2Pow31 = int64_t{1} << 31;
inline constexpr int64_t k2Pow32 = int64_t{1} << 32;
inline constexpr int64_t k2Pow40 = int64_t{1} << 40;

inline std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

inline bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` occurs in `text` (case-insensitive) not glued to other identifier characters.
inline bool HasWord(const std::string& text, const std::string& word) {
  const std::string t = Lower(text), w = Lower(word);
  for (size_t pos = t.find(w); pos != std::string::npos; pos = t.find(w, pos + 1)) {
    const bool left_ok = pos == 0 || !IsIdentChar(t[pos - 1]);
    const bool right_ok = pos + w.size() >= t.size() || !IsIdentChar(t[pos + w.size()]);
    if (left_ok && right_ok) return true;
  }
  return false;
}

inline bool Contains(const std::string& text, const std::string& part) {
  return Lower(text).find(Lower(part)) != std::string::npos;
}

// Checks the status and its message: one of `names` as a word and every one of `values`.
inline void ExpectError(const Status& s, StatusCode code, const std::vector<std::string>& names,
                        const std::vector<std::string>& values, const std::string& what) {
  EXPECT_FALSE(s.ok()) << what << ": accepted";
  EXPECT_EQ(static_cast<int>(s.code()), static_cast<int>(code))
      << what << ": wrong status code, message: " << s.message();
  bool named = names.empty();
  for (const std::string& n : names) named = named || HasWord(s.message(), n);
  EXPECT_TRUE(named) << what << ": message does not name " << ToString(names) << ": \""
                     << s.message() << '"';
  for (const std::string& v : values) {
    EXPECT_TRUE(Contains(s.message(), v))
        << what << ": message does not show the value " << v << ": \"" << s.message() << '"';
  }
}

// Buffers large enough for the valid shapes; Y starts as sentinel bytes so that a write shows.
struct Buffers {
  std::vector<double> x = std::vector<double>(4096, 0.5);
  std::vector<double> grid = std::vector<double>(4096, 0.0);
  std::vector<double> y = std::vector<double>(4096);
  void ResetY() { std::fill_n(reinterpret_cast<uint8_t*>(y.data()), y.size() * 8, kSentinel); }
  bool YUntouched() const {
    const auto* p = reinterpret_cast<const uint8_t*>(y.data());
    return std::all_of(p, p + y.size() * 8, [](uint8_t b) { return b == kSentinel; });
  }
};

// Each case (what, breaks, code, names, values) breaks one thing in an otherwise valid CallT:
// run(call, buffers) fails as the case says and leaves the output (named `output`) untouched,
// and a valid call right after still succeeds and writes it.
template <typename CallT, typename CaseT, typename RunFn>
void ExpectEveryCaseRejected(const std::string& kernel, const std::vector<CaseT>& cases,
                             const char* output, RunFn run) {
  for (const CaseT& bad : cases) {
    const std::string what = kernel + ", " + bad.what;
    CallT call;
    bad.breaks(call);
    Buffers buffers;
    buffers.ResetY();
    ExpectError(run(call, &buffers), bad.code, bad.names, bad.values, what);
    EXPECT_TRUE(buffers.YUntouched()) << what << ": " << output << " was written on error";
    // The library keeps no state from a failed call: a valid call works right after.
    buffers.ResetY();
    const Status ok = run(CallT(), &buffers);
    EXPECT_TRUE(ok.ok()) << what << ": valid call after the error failed: " << ok.message();
    EXPECT_FALSE(buffers.YUntouched()) << what << ": valid call after the error wrote nothing";
  }
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_VALIDATION_UTIL_H_
