// What a FastPathTester failure says: the operator and options, the output pixel, the inputs.
//
// FastPathTester's message members, defined apart from the class; fast_path_tester.h includes
// this file at its end, so including either one gives both.
#ifndef GRIDSAMPLE_TESTS_NATIVE_FAST_PATH_TESTER_MESSAGES_H_
#define GRIDSAMPLE_TESTS_NATIVE_FAST_PATH_TESTER_MESSAGES_H_

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fast_path_tester.h"
#include "gridsample/grid_sample.h"
#include "test_util.h"

namespace gridsample_test {

inline const char* FastPathTester::OpName(Op o) {
  switch (o) {
    case Op::kGridSample: return "GridSample";
    case Op::kGridSampleChannelsLast: return "GridSampleChannelsLast";
    case Op::kWarpAffine: return "WarpAffine";
    case Op::kWarpPerspective: return "WarpPerspective";
    case Op::kRemap: return "Remap";
    case Op::kWarpFlow: return "WarpFlow";
    case Op::kAffineGrid: return "AffineGrid";
  }
  return "?";
}

// "AVX2/GridSample mode=linear padding=zeros align_corners=0"
inline std::string FastPathTester::What() const {
  std::ostringstream s;
  s << gridsample::ActiveTarget() << '/' << OpName(op_) << ' ';
  if (op_ == Op::kAffineGrid) {
    s << "align_corners=" << (options_.align_corners ? 1 : 0);
  } else {
    s << Describe(options_);
  }
  return s.str();
}

// "n=0 c=2 pixel (y=3, x=5) grid (x=0.25, y=-1)": batch, channel, output pixel and its grid
// point (theta for WarpAffine); for AffineGrid "n=0 pixel (y=3, x=5) component 1 (y)".
inline std::string FastPathTester::Where(const Tensor& y, int64_t flat, const Tensor& grid) const {
  const std::vector<int64_t> idx = Unravel(flat, y.shape());
  const size_t rank = y.rank() - 2;
  static const char* const kAxes[] = {"t", "z", "y", "x"};
  std::vector<int64_t> pixel;  // spatial index, outermost first
  int64_t channel = 0;
  if (op_ == Op::kGridSample || op_ == Op::kWarpFlow) {
    pixel.assign(idx.begin() + 2, idx.end());
    channel = idx[1];
  } else {
    pixel.assign(idx.begin() + 1, idx.end() - 1);
    channel = idx.back();
  }
  std::ostringstream s;
  s << "n=" << idx[0];
  if (op_ != Op::kAffineGrid) s << " c=" << channel;
  s << " pixel (";
  for (size_t a = 0; a < rank; ++a) {
    s << (a ? ", " : "") << kAxes[4 - rank + a] << '=' << pixel[a];
  }
  s << ')';
  if (op_ == Op::kAffineGrid) {
    s << " component " << channel << " (" << kAxes[3 - channel] << ')';
  } else if (has_grid()) {
    // The grid point (n, pixel...): its coordinates, x first.
    int64_t point = idx[0];
    for (size_t a = 0; a < rank; ++a) point = point * grid.shape()[1 + a] + pixel[a];
    s << " grid (";
    for (size_t a = 0; a < rank; ++a) {
      s << (a ? ", " : "") << kAxes[3 - a] << '='
        << grid.Get(point * static_cast<int64_t>(rank) + static_cast<int64_t>(a));
    }
    s << ')';
  }
  if (op_ == Op::kWarpFlow) {
    const int64_t plane = pixel[0] * y.shape()[3] + pixel[1];
    const int64_t at = idx[0] * 2 * y.shape()[2] * y.shape()[3] + plane;
    s << " flow (dx=" << flow_->Get(at) << ", dy=" << flow_->Get(at + y.shape()[2] * y.shape()[3])
      << ')';
  }
  if (op_ == Op::kRemap) {
    const int64_t p = flat / y.shape().back();  // the output pixel (n, i, j) as one index
    s << " map (x=" << (map_y_ ? map_x_->Get(p) : map_x_->Get(2 * p))
      << ", y=" << (map_y_ ? map_y_->Get(p) : map_x_->Get(2 * p + 1)) << ')';
  }
  if (theta_) {
    const int64_t per_batch = theta_->size() / theta_->shape()[0];
    s << (op_ == Op::kWarpPerspective ? " H[" : " theta[") << idx[0] << "] = (";
    for (int64_t k = 0; k < per_batch; ++k) {
      s << (k ? ", " : "") << theta_->Get(idx[0] * per_batch + k);
    }
    s << ')';
  }
  return s.str();
}

inline std::string FastPathTester::Inputs(const Tensor& x, const Tensor& grid) const {
  std::ostringstream s;
  if (op_ != Op::kAffineGrid) s << "X " << Name(x.dtype()) << ' ' << ToString(x.shape()) << ", ";
  if (has_grid()) {
    s << "grid " << Name(grid.dtype()) << ' ' << ToString(grid.shape());
  } else if (op_ == Op::kRemap) {
    s << (map_y_ ? "map_x, map_y " : "map ") << ToString(map_x_->shape());
  } else if (op_ == Op::kWarpFlow) {
    s << "flow " << ToString(flow_->shape());
  } else {
    s << (op_ == Op::kWarpPerspective ? "H " : "theta ") << Name(theta_->dtype()) << ' '
      << ToString(theta_->shape()) << ", output " << ToString(out_);
  }
  return s.str();
}
}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_FAST_PATH_TESTER_MESSAGES_H_
