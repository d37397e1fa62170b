// The coordinate sources in scalar form: where the references take each output point's
// coordinates from, one rule per source of problem/problem.h for both layouts (sources/ holds
// their vector forms, which the fast paths plan from).
#ifndef GRIDSAMPLE_REFERENCE_POINTS_H_
#define GRIDSAMPLE_REFERENCE_POINTS_H_

#include <cstdint>

#include "problem/problem.h"
#include "rules/pixel_rule.h"

namespace gridsample {
namespace reference {

// A problem's output points and their coordinates. Fill writes those of points
// [p0, p0 + count) of batch item n, p counting over the whole output's spatial axes in row-major
// order: rank() per point, outermost axis first, as doubles in space(). Holds pointers into the
// problem, which must outlive it.
class Points {
 public:
  explicit Points(const PlanesProblem& problem);
  explicit Points(const PixelsProblem& problem);

  CoordinateSpace space() const { return space_; }
  int rank() const { return rank_; }
  void Fill(int64_t n, int64_t p0, int64_t count, double* coords) const {
    fill_(*this, n, p0, count, coords);
  }

  // Pixel maps as Fill reads them: point p of item n has x at x[n * item + p * step] and y at
  // y[...] alike; positions, or offsets from the point's column and row.
  struct Maps {
    const float* x;
    const float* y;
    int64_t item, step;
  };

 private:
  using FillFn = void (*)(const Points&, int64_t n, int64_t p0, int64_t count, double* coords);
  static void FillGrid(const Points&, int64_t, int64_t, int64_t, double*);
  static void FillAffine(const Points&, int64_t, int64_t, int64_t, double*);
  static void FillPerspective(const Points&, int64_t, int64_t, int64_t, double*);
  template <bool kOffsets>
  static void FillMaps(const Points&, int64_t, int64_t, int64_t, double*);

  CoordinateSpace space_ = CoordinateSpace::kNormalised;
  int rank_ = 2;
  int64_t out_spatial_ = 0, out_h_ = 0, out_w_ = 0;  // the whole output's
  bool align_ = false;
  TensorView tensor_;  // the grid, theta or H
  Maps maps_{};
  FillFn fill_ = nullptr;
};

}  // namespace reference
}  // namespace gridsample

#endif  // GRIDSAMPLE_REFERENCE_POINTS_H_
