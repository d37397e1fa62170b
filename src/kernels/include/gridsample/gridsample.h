// Umbrella header: the whole public C++ API of gridsample.
#ifndef GRIDSAMPLE_GRIDSAMPLE_H_
#define GRIDSAMPLE_GRIDSAMPLE_H_

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/matrices.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "gridsample/sampler.h"
#include "gridsample/threads.h"
#include "gridsample/types.h"
#include "gridsample/warp_affine.h"
#include "gridsample/warp_flow.h"

#endif  // GRIDSAMPLE_GRIDSAMPLE_H_
