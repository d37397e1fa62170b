// A channels-last image's axes as the planner and the sources see them: output and input sizes
// (checked to fit int32 offsets), align_corners and padding.
#ifndef GRIDSAMPLE_PLANNER_IMAGE_AXES_H_
#define GRIDSAMPLE_PLANNER_IMAGE_AXES_H_

#include <cstdint>

#include "gridsample/types.h"

namespace gridsample {
namespace fast {

struct ImageAxes {
  int64_t out_h, out_w;
  int32_t in_h, in_w;
  bool align;
  Padding padding;
};

}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_PLANNER_IMAGE_AXES_H_
