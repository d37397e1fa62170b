// The median of a set of timings, for the bench's small native programs (membw.cc, cores.cc).
#ifndef GRIDSAMPLE_BENCH_MEDIAN_H_
#define GRIDSAMPLE_BENCH_MEDIAN_H_

#include <algorithm>
#include <vector>

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif  // GRIDSAMPLE_BENCH_MEDIAN_H_
