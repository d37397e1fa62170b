// Public C++ API for backward warps by an optical-flow field (RAFT / RIFE's convention) on NCHW
// tensors.
#ifndef GRIDSAMPLE_WARP_FLOW_H_
#define GRIDSAMPLE_WARP_FLOW_H_

#include "gridsample/grid_sample.h"
#include "gridsample/types.h"

namespace gridsample {

// Y = X warped backward by the flow F, in pixels: Y(n, c, i, j) samples X(n, c) at
// (j + F(n, 0, i, j), i + F(n, 1, i, j)) (x then y; pixel centres at integer coordinates),
// i.e. out(p) = in(p + flow(p)). Every mode and padding (align_corners moves no point; it only
// chooses reflection's lines: the pixel edges, or the outer pixels' centres). A non-finite
// position samples 0. No grid is built: each position j + F is rounded to float32 once and
// sampled as it is (src/kernels/rules/pixel_rule.h), so weights exact in binary stay exact.
//   x:    (N, C, H, W); every dtype GridSample takes.
//   flow: (N, 2, Ho, Wo) float32, dx then dy (Ho, Wo usually H, W).
//   y:    (N, C, Ho, Wo), same dtype as x; must not overlap x or flow.
// Validates everything first; on error nothing is written.
Status WarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                const GridSampleOptions& options = {});

}  // namespace gridsample

#endif  // GRIDSAMPLE_WARP_FLOW_H_
