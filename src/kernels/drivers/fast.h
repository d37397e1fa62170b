// Internal interface of the SIMD fast paths (Highway): which problems they cover, their entry
// points, and target control.
#ifndef GRIDSAMPLE_DRIVERS_FAST_H_
#define GRIDSAMPLE_DRIVERS_FAST_H_

#include <cstdint>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "planner/image_axes.h"
#include "problem/geometry.h"
#include "problem/problem.h"
#include "rules/pixel_rule.h"

// Calls a HWY_EXPORTed kernel on the chosen target: the one compiled target when cross
// compiling (WASM, NEON; GRIDSAMPLE_STATIC_DISPATCH), else the best one this CPU supports.
// For the HWY_ONCE parts of the kernel files, after hwy/highway.h.
#if GRIDSAMPLE_STATIC_DISPATCH
#define GRIDSAMPLE_DISPATCH(fn) HWY_STATIC_DISPATCH(fn)
#else
#define GRIDSAMPLE_DISPATCH(fn) HWY_DYNAMIC_DISPATCH(fn)
#endif

namespace gridsample {
namespace fast {

// Whether a fast path takes the problem (dtypes, rank, sizes, the source's tensors): Try runs
// exactly when Covers says so, and the tests ask it rather than re-deriving the rules. Neither
// reads the tensors' data: a problem whose tensors hold only dtypes may be asked.
// Planes: X of a dtype computed in float, rank 2 or 3, any float grid; WarpFlow's output
// sides below kMaxFlowSide.
bool Covers(const PlanesProblem& problem);
// Pixels (on a target with SIMD: TargetHasChannelsLast): X uint8 or float32 with at least one
// channel, each side at least the mode's window; a float32 grid or maps, theta and H float32
// or float64; WarpPerspective's output width at most kMaxPerspectiveWidth, a flow's output
// sides below kMaxFlowSide (planner/limits.h).
bool Covers(const PixelsProblem& problem);
// Multi-scale deformable attention: float32 value, locations and weights, every level's sides
// at most kMaxAxis (planner/limits.h).
bool Covers(const DeformableAttentionProblem& problem);
// Whether that path gathers each head's rows into one plane before the head's queries read them
// (kAuto: where drivers/attention_args.h's rule says so; the tests force both ways).
enum class AttentionGather { kAuto, kNever, kAlways };
void SetAttentionGatherForTest(AttentionGather gather);
// The channels-last kernels exist on every target but SCALAR.
bool TargetHasChannelsLast();

// Runs the problem on a fast path when Covers says so and returns true; else returns false,
// having written nothing, and the caller runs the reference (api/run.h).
bool Try(const PlanesProblem& problem);
bool Try(const PixelsProblem& problem);
// The same for a problem whose source the caller built, one entry per source type: only that
// source's kernels are reached, so a program calling GridSample alone links no flow kernels,
// WarpAffine alone no perspective or map kernels (the wasm core module and the size table's
// modules; api/run.h's RunFrom): any type of PlanesProblem::Source (planes_driver.cc
// instantiates each) or of PixelsProblem::Source (pixels_driver.cc).
template <class At>
bool Try(const PlanesProblem& problem, const At& source);
template <class At>
bool Try(const PixelsProblem& problem, const At& source);
bool Try(const DeformableAttentionProblem& problem);

// float32 and float64 theta, equal to the reference bit for bit.
bool TryAffineGrid(const AffineGridGeometry& geometry, const TensorView& theta,
                   const MutableTensorView& grid, const AffineGridOptions& options);

// A channels-last problem as the kernels see it (its axes: planner/image_axes.h).
struct InterleavedProblem {
  int64_t n;
  ImageAxes axes;
  int64_t row0, rows;  // the rows y holds: [row0, row0 + rows) of axes.out_h
  int c;
  DType dtype;  // X's and Y's: uint8 or float32
  const void* x;
  void* y;
  Mode mode;
  const double* fill;  // zeros padding's colour (c values), or null for 0
  Threads threads;     // the threads the call may use
};

// The pixels problem in the kernels' terms: false when no kernel covers it (Covers).
bool InterleavedOf(const PixelsProblem& problem, InterleavedProblem* kernels_problem);

// float16 bits <-> float32 for n values, exactly as HalfToFloat / FloatToHalf (half.h).
void HalfsToFloats(const uint16_t* src, float* dst, int64_t n);
void FloatsToHalfs(const float* src, uint16_t* dst, int64_t n);

// For a dtype computed in float (ComputesInDouble false): n values as float32, exactly as
// DTypeTraits::Load, and n float32 results stored as DTypeTraits::Store does.
void LoadFloats(DType dtype, const void* src, int64_t n, float* dst);
void StoreFloats(DType dtype, const float* src, int64_t n, void* dst);
// n grid coordinates of a float dtype as the float32 ones the reference takes from them
// for `padding` (rules/coordinate_rule.h's CoordinateAsFloat).
void LoadCoordinates(DType dtype, const void* src, int64_t n, Padding padding, float* dst);

// Name of the Highway target that dispatch picks now ("AVX2", "WASM", "NEON", ...).
const char* TargetName();

}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_DRIVERS_FAST_H_
