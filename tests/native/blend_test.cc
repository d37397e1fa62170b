// The fast paths' blends alone (src/kernels/blends/planar-inl.h, interleaved-inl.h),
// on every compiled target, on random plans written here: every output equals the plain sum
// over the window's taps (innermost axis fastest, from 0, weight * value in float), uint8 then
// rounded half to even and saturated; nearest copies its tap where the weight is not 0; and
// nothing is written outside the pixels asked for.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "drivers/fast.h"
#include "gtest/gtest.h"
#include "planner/limits.h"
#include "probes/probes.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

namespace fast = gridsample::fast;

// a * b rounded to float on its own: no compiler may fuse it with the sum that follows into an
// FMA (g++ contracts a * b + c by default where FMA is baseline, e.g. aarch64), which the
// library never does (-ffp-contract=off).
float Product(float a, float b) {
  volatile float p = a * b;
  return p;
}

int Pow(int base, int exp) { return exp == 0 ? 1 : base * Pow(base, exp - 1); }

int Uniform(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// The weights of one pixel's taps. Some pixels have none (zeros padding, every tap outside);
// the others mix exact zeros, halves (uint8 sums that land on a tie), multiples of 1/64 and
// arbitrary floats, negative ones included (cubic), enough to saturate uint8 both ways.
// Nearest plans hold 0 or 1 (the planner's only nearest weights).
void RandomWeights(std::mt19937& rng, Mode m, int taps, float* w) {
  const int kind = Uniform(rng, 0, 9);
  for (int t = 0; t < taps; ++t) {
    if (kind == 0) {
      w[t] = 0.0f;
    } else if (m == Mode::kNearest) {
      w[t] = kind < 3 ? 0.0f : 1.0f;
    } else if (kind < 3) {
      w[t] = 0.5f * static_cast<float>(Uniform(rng, -1, 3));
    } else {
      const int r = Uniform(rng, 0, 9);
      if (r < 2) {
        w[t] = 0.0f;
      } else if (r < 6) {
        w[t] = static_cast<float>(Uniform(rng, -64, 96)) / 64.0f;
      } else {
        w[t] = std::uniform_real_distribution<float>(-0.8f, 1.3f)(rng);
      }
    }
  }
}

// A window start on an axis of `size` for a window of `window` taps: often at either end (the
// window that ends at the last pixel reads up to the end of X exactly).
int32_t WindowStart(std::mt19937& rng, int32_t size, int window) {
  const int r = Uniform(rng, 0, 9);
  if (r == 0) return 0;
  if (r < 3) return size - window;
  return Uniform(rng, 0, size - window);
}

float RandomFloat(std::mt19937& rng) {
  if (Uniform(rng, 0, 19) == 0) return 0.0f;
  return std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
}
uint8_t RandomByte(std::mt19937& rng) {
  const int r = Uniform(rng, 0, 9);
  if (r < 2) return r == 0 ? 0 : 255;
  return static_cast<uint8_t>(Uniform(rng, 0, 255));
}

template <typename T>
T RandomValue(std::mt19937& rng);
template <>
float RandomValue<float>(std::mt19937& rng) {
  return RandomFloat(rng);
}
template <>
uint8_t RandomValue<uint8_t>(std::mt19937& rng) {
  return RandomByte(rng);
}

// Values the blends never store (NaNs with a payload; for uint8 two bytes, one run each, so
// that a stray store of either is still seen).
template <typename T>
T Sentinel(int run);
template <>
float Sentinel<float>(int run) {
  const uint32_t bits = run == 0 ? 0x7FC05A5Au : 0x7FC0A5A5u;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
template <>
uint8_t Sentinel<uint8_t>(int run) {
  return run == 0 ? 0x5A : 0xA5;
}

// A value as failure messages show it: floats to the last bit.
std::string Exact(float v) {
  char s[48];
  std::snprintf(s, sizeof s, "%.9g (%a)", v, v);
  return s;
}
std::string Exact(uint8_t v) { return std::to_string(v); }

template <typename T>
bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The stored result of the sum `acc`: float as it is; uint8 rounded half to even (nearbyint in
// the default rounding mode) and saturated to [0, 255] (DESIGN.md section 2).
float Stored(float acc, float*) { return acc; }
uint8_t Stored(float acc, uint8_t*) {
  return static_cast<uint8_t>(std::min(std::max(std::nearbyint(acc), 0.0f), 255.0f));
}

class BlendTest : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(BlendTest);

// NCHW planes, 2-D and 3-D, 1 to 3 channels (pairs and a last odd one), counts around the
// vector width and a full tile.
TEST_P(BlendTest, PlanarEqualsWeightedSum) {
  std::mt19937 rng(47);
  constexpr int kGuard = 20;  // floats before and after each output: more than a vector
  const float sentinel = Sentinel<float>(0);
  int64_t checked = 0;
  for (Mode m : kModes) {
    const int window = gridsample::TapsPerAxis(m);
    for (int rank : {2, 3}) {
      const int taps = Pow(window, rank);
      int tile = 0, lanes = 0;
      fast::ProbeBlendTile(m, rank, &tile, &lanes);
      ASSERT_GE(lanes, 1);
      ASSERT_GE(tile, 2 * lanes + 1);
      // Around one and two vectors (and AVX-512's 16 plan lanes), and whole tiles.
      const int any = Uniform(rng, 1, tile);
      const int counts[] = {1,         lanes - 1,     lanes, lanes + 1, 2 * lanes - 1,
                            2 * lanes, 2 * lanes + 1, 15,    17,        3 * lanes + 2,
                            tile - 1,  tile,          any};
      for (int count : counts) {
        if (count < 1) continue;
        for (int channels = 1; channels <= 3; ++channels) {
          // Planes of sizes window .. window + 5 along each axis (outermost first).
          std::vector<int32_t> size(rank), stride(rank);
          for (int a = 0; a < rank; ++a) size[a] = window + Uniform(rng, 0, 5);
          stride[rank - 1] = 1;
          for (int a = rank - 2; a >= 0; --a) stride[a] = stride[a + 1] * size[a + 1];
          const int32_t spatial = stride[0] * size[0];
          // Each plane its own allocation of its exact size: a read past it is a sanitizer error.
          std::vector<std::vector<float>> x(channels, std::vector<float>(spatial));
          for (auto& plane : x) {
            for (float& v : plane) v = RandomFloat(rng);
          }
          std::vector<int32_t> offset(count);
          std::vector<float> weight(static_cast<size_t>(count) * taps);
          for (int p = 0; p < count; ++p) {
            offset[p] = 0;
            for (int a = 0; a < rank; ++a) {
              offset[p] += WindowStart(rng, size[a], window) * stride[a];
            }
            RandomWeights(rng, m, taps, &weight[static_cast<size_t>(p) * taps]);
          }
          std::vector<std::vector<float>> y(channels,
                                            std::vector<float>(kGuard + count + kGuard, sentinel));
          std::vector<const float*> xs(channels);
          std::vector<float*> outs(channels);
          for (int c = 0; c < channels; ++c) {
            xs[c] = x[c].data();
            outs[c] = y[c].data() + kGuard;
          }
          const std::string what = target() + ' ' + Name(m) + " rank " + std::to_string(rank) +
                                   ", " + std::to_string(channels) + " channels, count " +
                                   std::to_string(count) + " (lanes " + std::to_string(lanes) +
                                   ", tile " + std::to_string(tile) + ")";
          ASSERT_TRUE(fast::ProbeBlendPlanar(m, rank, size.data(), channels, xs.data(), count,
                                             offset.data(), weight.data(), outs.data()))
              << what;
          for (int c = 0; c < channels; ++c) {
            for (int i = 0; i < kGuard + count + kGuard; ++i) {
              if (i >= kGuard && i < kGuard + count) continue;
              ASSERT_TRUE(SameBits(y[c][i], sentinel)) << what << ": wrote channel " << c << " at "
                                                       << i - kGuard << ", outside [0, count)";
            }
            for (int p = 0; p < count; ++p) {
              const float* w = &weight[static_cast<size_t>(p) * taps];
              float want = 0.0f;
              if (m == Mode::kNearest) {
                want = w[0] != 0.0f ? x[c][offset[p]] : 0.0f;
              } else {
                // Tap t's index along each axis, innermost axis fastest.
                for (int t = 0; t < taps; ++t) {
                  int rest = t;
                  int32_t at = offset[p];
                  for (int a = rank - 1; a >= 0; --a) {
                    at += (rest % window) * stride[a];
                    rest /= window;
                  }
                  want += Product(w[t], x[c][at]);
                }
              }
              // == : bit for bit up to the sign of a zero (README, "Accuracy").
              ASSERT_TRUE(outs[c][p] == want)
                  << what << ": pixel " << p << " channel " << c << " (window at element "
                  << offset[p] << "): blended " << Exact(outs[c][p]) << ", the sum is "
                  << Exact(want);
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// What the channels-last test saw, so that it can insist on the cases it means to cover.
struct InterleavedSeen {
  int64_t checked = 0;
  int64_t end_windows = 0;  // C = 3 pixels blended from the window that holds X's last pixel
  int64_t ties = 0;         // uint8 sums exactly halfway between two levels inside [0, 255]
  int64_t saturated = 0;    // uint8 sums that round below 0 or above 255
};

// One run of BlendPixels<T, C> on random plans of `count` pixels of an h x w image, pixels
// [begin, end), and the check of every output and of the memory around them.
template <typename T>
void CheckInterleaved(const std::string& target, std::mt19937& rng, Mode m, int c, int32_t h,
                      int32_t w, int count, int begin, int end, int exact_end,
                      InterleavedSeen* seen) {
  const int window = gridsample::TapsPerAxis(m);
  const int taps = window * window;
  const int32_t row = w * c;
  // X in an allocation of its exact size: reading four lanes from its last pixel (C = 3)
  // instead of `tail` is a sanitizer error.
  std::vector<T> x(static_cast<size_t>(h) * row);
  for (T& v : x) v = RandomValue<T>(rng);
  // Image's `tail` (X's last pixel and a zero; read for C = 3 only) and `end_window` (the offset
  // of the only window that holds X's last pixel).
  T tail[4] = {};
  if (c == 3) std::copy(x.end() - 3, x.end(), tail);
  const int32_t end_window = (h - window) * row + (w - window) * c;
  std::vector<int32_t> offset(count);
  std::vector<float> weight(static_cast<size_t>(count) * taps);
  for (int p = 0; p < count; ++p) {
    offset[p] = WindowStart(rng, h, window) * row + WindowStart(rng, w, window) * c;
    RandomWeights(rng, m, taps, &weight[static_cast<size_t>(p) * taps]);
  }
  const std::string what = target + ' ' + Name(m) + (sizeof(T) == 1 ? " uint8" : " float32") +
                           " C=" + std::to_string(c) + ' ' + std::to_string(h) + "x" +
                           std::to_string(w) + ", count " + std::to_string(count) + ", pixels [" +
                           std::to_string(begin) + ", " + std::to_string(end) + "), exact_end " +
                           std::to_string(exact_end);
  // C = 3 stores four elements except at exact_end: the last pixel may write one element past
  // itself unless it is exact_end (the next pixel overwrites it in the driver).
  const int allowed_past_end = c == 3 && begin < end && exact_end != end - 1 ? 1 : 0;
  constexpr int kGuardPixels = 4;
  for (int run = 0; run < 2; ++run) {
    const T sentinel = Sentinel<T>(run);
    std::vector<T> y(static_cast<size_t>(kGuardPixels + count + kGuardPixels) * c, sentinel);
    T* out = y.data() + kGuardPixels * c;
    ASSERT_TRUE(fast::ProbeBlendInterleaved(
        m, sizeof(T) == 1, c, x.data(), row, c == 3 ? tail : nullptr, end_window, count,
        offset.data(), weight.data(), begin, end, exact_end, out))
        << what;
    for (size_t i = 0; i < y.size(); ++i) {
      const int64_t e = static_cast<int64_t>(i) - kGuardPixels * c;  // element of out
      if (e >= int64_t{begin} * c && e < int64_t{end} * c + allowed_past_end) continue;
      ASSERT_TRUE(SameBits(y[i], sentinel))
          << what << ": wrote element " << e << " (pixel " << (e - (e < 0 ? c - 1 : 0)) / c
          << "), outside the pixels asked for";
    }
    for (int p = begin; p < end; ++p) {
      const float* wp = &weight[static_cast<size_t>(p) * taps];
      if (run == 0 && c == 3 && m != Mode::kNearest && offset[p] == end_window) ++seen->end_windows;
      for (int ch = 0; ch < c; ++ch) {
        T want;
        if (m == Mode::kNearest) {
          want = wp[0] != 0.0f ? x[offset[p] + ch] : T(0);
        } else {
          float acc = 0.0f;  // taps row by row, left to right
          for (int j = 0; j < window; ++j) {
            for (int k = 0; k < window; ++k) {
              const float v = static_cast<float>(x[offset[p] + j * row + k * c + ch]);
              acc += Product(wp[j * window + k], v);
            }
          }
          want = Stored(acc, static_cast<T*>(nullptr));
          if (sizeof(T) == 1 && run == 0) {
            if (acc > 0.0f && acc < 255.0f && acc - std::floor(acc) == 0.5f) ++seen->ties;
            if (acc < -0.5f || acc > 255.5f) ++seen->saturated;
          }
        }
        // Bit for bit (floats up to the sign of a zero): the blend keeps the reference's order.
        ASSERT_TRUE(out[p * c + ch] == want)
            << what << ": pixel " << p << " channel " << ch << " (window at element " << offset[p]
            << (offset[p] == end_window ? ", the last window" : "") << "): blended "
            << Exact(out[p * c + ch]) << ", the sum is " << Exact(want);
        ++seen->checked;
      }
    }
  }
}

// Channels-last pixels, float32 and uint8, C = 1 to 4: whole tiles and parts, single and empty
// ranges, exact_end at the range's end, beyond it or absent, and C = 3 windows that end at X's
// last pixel (read from `tail`).
TEST_P(BlendTest, InterleavedEqualsWeightedSum) {
  // Highway's SCALAR target has one-lane vectors only: the channels-last kernels, which hold a
  // pixel's channels in four lanes, leave it to the generic path.
  if (!fast::TargetHasChannelsLast()) GTEST_SKIP() << target() << " has no channels-last kernels";
  std::mt19937 rng(53);
  InterleavedSeen seen;
  for (Mode m : kModes) {
    const int window = gridsample::TapsPerAxis(m);
    int tile = 0, lanes = 0;
    fast::ProbeBlendTile(m, 2, &tile, &lanes);
    ASSERT_GE(tile, 3 * lanes + 3);
    for (bool uint8 : {false, true}) {
      for (int c = 1; c <= 4; ++c) {
        for (int iter = 0; iter < 24; ++iter) {
          // Small images: many windows at the last pixel.
          const int32_t h = window + Uniform(rng, 0, 3), w = window + Uniform(rng, 0, 5);
          const int count = iter == 0   ? tile
                            : iter == 1 ? 1
                                        : Uniform(rng, 1, std::min(tile, 3 * lanes + 3));
          int begin = 0, end = count;
          switch (iter % 4) {
            case 1: begin = count - 1; break;
            case 2:
              begin = Uniform(rng, 0, count - 1);
              end = Uniform(rng, begin + 1, count);
              break;
            case 3: begin = end = Uniform(rng, 0, count); break;  // nothing to blend
            default: break;
          }
          const int exact_end = iter % 3 == 0 ? -1 : (iter % 3 == 1 ? end - 1 : count - 1);
          if (uint8) {
            ASSERT_NO_FATAL_FAILURE(CheckInterleaved<uint8_t>(target(), rng, m, c, h, w, count,
                                                              begin, end, exact_end, &seen));
          } else {
            ASSERT_NO_FATAL_FAILURE(CheckInterleaved<float>(target(), rng, m, c, h, w, count, begin,
                                                            end, exact_end, &seen));
          }
        }
      }
    }
  }
  EXPECT_GT(seen.checked, 0);
  EXPECT_GT(seen.end_windows, 0) << "no C = 3 window at X's last pixel";
  EXPECT_GT(seen.ties, 0) << "no uint8 sum on a tie";
  EXPECT_GT(seen.saturated, 0) << "no uint8 sum beyond [0, 255]";
}

}  // namespace
}  // namespace gridsample_test
