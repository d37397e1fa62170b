// The planner and the blends on their own, for tests (plan_test.cc, blend_test.cc): entry points
// dispatched to the best target as the library's kernels are, compiled with the kernels'
// settings into gridsample_probes (cmake/tests.cmake) and kept out of the installed library.
#ifndef GRIDSAMPLE_TESTS_PROBES_PROBES_H_
#define GRIDSAMPLE_TESTS_PROBES_PROBES_H_

#include <cstdint>

#include "drivers/fast.h"

namespace gridsample {
namespace fast {

// For tests: the planner's window start and slot weights (4 per coordinate, kT used) for the
// finite coordinates g[0..count) in `space` on an axis of `size` >= the mode's window.
void ProbePlanAxis(Mode mode, Padding padding, CoordinateSpace space, int32_t size, bool align,
                   const float* g, int count, int32_t* start, float* weight);
// For tests: a tile's capacity in pixels (mode, rank 2 or 3) and the NCHW blend's lanes.
void ProbeBlendTile(Mode mode, int rank, int* pixels, int* lanes);
// For tests: the NCHW blend (BlendTile, channels paired as the driver pairs them) of planes
// x[c] of sizes size[0..rank) (outermost first, each >= the window) into out[c][0..count), for
// the plans offset[p] (window start) and weight[p * taps + t] (taps innermost axis fastest) of
// pixels p < count; false (nothing run) for a rank or count (1 to the tile) it does not take.
bool ProbeBlendPlanar(Mode mode, int rank, const int32_t* size, int channels, const float* const* x,
                      int count, const int32_t* offset, const float* weight, float* const* out);
// For tests: the channels-last blend (BlendPixels) of the pixels [begin, end) of plans given as
// for ProbeBlendPlanar (offsets in elements), X uint8 or float32 with `channels` (1 to 4) and
// `row` elements per row, `tail` and `end_window` as in its Image; false (nothing run) on
// SCALAR (TargetHasChannelsLast) and for a count or range it does not take.
bool ProbeBlendInterleaved(Mode mode, bool uint8, int channels, const void* x, int32_t row,
                           const void* tail, int32_t end_window, int count, const int32_t* offset,
                           const float* weight, int begin, int end, int exact_end, void* out);

}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_TESTS_PROBES_PROBES_H_
