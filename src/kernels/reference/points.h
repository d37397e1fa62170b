// A problem's output points and their coordinates as the references read them: the scalar form
// of the problem's coordinate source (sources/*_source.h), chosen once per call.
#ifndef GRIDSAMPLE_REFERENCE_POINTS_H_
#define GRIDSAMPLE_REFERENCE_POINTS_H_

#include <cstdint>

#include "problem/problem.h"
#include "rules/pixel_rule.h"
#include "sources/map_source.h"

namespace gridsample {
namespace reference {

// Fill writes the coordinates of points [p0, p0 + count) of batch item n, p counting over the
// whole output's spatial axes in row-major order: the problem's rank per point, outermost axis
// first, as doubles in space(). Holds pointers into the problem, which must outlive it.
class Points {
 public:
  explicit Points(const PlanesProblem& problem);
  explicit Points(const PixelsProblem& problem);

  CoordinateSpace space() const { return space_; }
  void Fill(int64_t n, int64_t p0, int64_t count, double* coords) const {
    fill_(*this, n, p0, count, coords);
  }

 private:
  using FillFn = void (*)(const Points&, int64_t n, int64_t p0, int64_t count, double* coords);
  static void FillGrid(const Points&, int64_t, int64_t, int64_t, double*);
  static void FillAffine(const Points&, int64_t, int64_t, int64_t, double*);
  static void FillPerspective(const Points&, int64_t, int64_t, int64_t, double*);
  template <bool kOffsets>
  static void FillMaps(const Points&, int64_t, int64_t, int64_t, double*);
  void SetMaps(const PixelMaps& maps, FillFn fill);

  CoordinateSpace space_ = CoordinateSpace::kNormalised;
  int rank_ = 2;
  int64_t out_spatial_ = 0, out_h_ = 0, out_w_ = 0;  // the whole output's
  bool align_ = false;
  TensorView tensor_;  // the grid, theta or H
  PixelMaps maps_{};
  FillFn fill_ = nullptr;
};

}  // namespace reference
}  // namespace gridsample

#endif  // GRIDSAMPLE_REFERENCE_POINTS_H_
