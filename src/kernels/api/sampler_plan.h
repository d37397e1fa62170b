// A prepared call's state (gridsample/sampler.h), which each operator's Prepare function fills
// beside its argument rule in api/*.cc, and RunPlan, the one way a prepared or free call runs.
#ifndef GRIDSAMPLE_API_SAMPLER_PLAN_H_
#define GRIDSAMPLE_API_SAMPLER_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "api/matrices_internal.h"
#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/matrices.h"
#include "gridsample/sampler.h"
#include "gridsample/warp_affine.h"
#include "problem/checks.h"
#include "problem/geometry.h"

namespace gridsample {

struct FixedMaps;  // maps given at preparation, planned (api/fixed_maps.cc)

// A tensor's shape and dtype as validated, and its element count.
struct PlannedTensor {
  DType dtype = DType::kFloat32;
  size_t rank = 0;
  int64_t shape[2 + kMaxSpatialRank] = {};
  int64_t count = 0;

  // `view`'s shape and dtype (its rank at most 2 + kMaxSpatialRank) and `count` elements.
  static PlannedTensor Of(const TensorView& view, int64_t count);
  TensorView View(const void* data) const { return {data, dtype, shape, rank}; }
};

struct SamplerPlan {
  static constexpr size_t kMaxInputs = 3;
  // Runs the validated call on `inputs` (input_count views) into y: Ok, or an error that data
  // alone can give (a pixel-space matrix that cannot be inverted), with nothing written.
  using Execute = Status (*)(const SamplerPlan& plan, const TensorView* inputs,
                             const MutableTensorView& y);

  const char* op = "";  // the operator's name, which every message starts with
  const char* input_names[kMaxInputs] = {};
  const char* output_name = "Y";
  size_t input_count = 0;
  PlannedTensor inputs[kMaxInputs];
  PlannedTensor output;
  GridSampleOptions options;                     // AffineGrid: align_corners and threads only
  MatrixSpace space = MatrixSpace::kNormalized;  // the image warps' matrix space
  // How the warps' messages name the option that gives a pixel-space matrix as the
  // output-to-input map (the matrix itself is input_names[1]).
  const char* inverse_option = kPixelInverseWords;
  // The image warps' fill colour (pixels.c values) or null: the caller's for a free function's
  // plan, fill_storage's in a Sampler's.
  const double* fill = nullptr;
  std::vector<double> fill_storage;
  // The geometry of the operator's layout (the one its Execute reads).
  GridSampleGeometry planes;
  ChannelsLastGeometry pixels;
  AffineGridGeometry affine;
  Execute execute = nullptr;
  // Remap's and WarpFlowChannelsLast's maps when given at preparation (Sampler::RemapFixed),
  // shared by the plan's copies.
  std::shared_ptr<const FixedMaps> fixed_maps;
};

// Fills the plan's operator name and its inputs: X, and the coordinates named `coordinates`
// (their element counts by their shapes, which the rule has checked).
void PlanInputs(const char* op, const TensorView& x, const char* coordinates,
                const TensorView& coords, SamplerPlan* plan);
// Fills the plan's output: `dtype`, `rank` dims of `shape` (which the rule has checked).
void PlanOutput(DType dtype, const int64_t* shape, size_t rank, SamplerPlan* plan);

// The data checks of a run, in the free functions' order (each input's pointer, then Y's shape,
// dtype, pointer and overlaps), then plan.execute.
Status RunPlan(const SamplerPlan& plan, const void* const* inputs, size_t count,
               const MutableTensorView& y);

// A Sampler factory's body: a plan filled by `prepare(SamplerPlan*)` (a Prepare function bound to
// its arguments), which *sampler adopts.
template <class Prepare>
Status PrepareSampler(const char* op, Sampler* sampler, const Prepare& prepare) {
  if (sampler == nullptr) return Invalid(op, "the Sampler pointer is null");
  SamplerPlan plan;
  const Status s = prepare(&plan);
  return s.ok() ? AdoptPlan(plan, sampler) : s;
}

// A free function's body: the plan prepared on the stack, then run on the call's data.
template <class Prepare>
Status PrepareAndRun(const Prepare& prepare, std::initializer_list<const void*> inputs,
                     const MutableTensorView& y) {
  SamplerPlan plan;
  const Status s = prepare(&plan);
  return s.ok() ? RunPlan(plan, inputs.begin(), plan.input_count, y) : s;
}

// The preparing functions, each beside its operator's rule: options, then the inputs' shapes
// and dtypes, filling *plan (left partly filled on error).
Status PrepareGridSample(const TensorView& x, const TensorView& grid,
                         const GridSampleOptions& options, SamplerPlan* plan);
Status PrepareGridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                                     const GridSampleOptions& options, SamplerPlan* plan);
Status PrepareWarpFlow(const TensorView& x, const TensorView& flow,
                       const GridSampleOptions& options, SamplerPlan* plan);
Status PrepareAffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                         const AffineGridOptions& options, SamplerPlan* plan);
// The image warps (api/warp_affine.cc): Y's shape from y (its data not read), a band of `rows`
// (null for the whole output), the matrix in `space`.
Status PrepareWarpAffine(const TensorView& x, const TensorView& m, const TensorView& y,
                         const OutputRows* rows, const GridSampleOptions& options,
                         const double* fill, MatrixSpace space, SamplerPlan* plan);
Status PrepareWarpPerspective(const TensorView& x, const TensorView& h, const TensorView& y,
                              const OutputRows* rows, const GridSampleOptions& options,
                              const double* fill, MatrixSpace space, SamplerPlan* plan);
// Remap and WarpFlowChannelsLast (api/remap.cc): `count` maps, one of pairs or two planes.
Status PrepareRemap(const TensorView& x, const TensorView* maps, int count,
                    const GridSampleOptions& options, const double* fill, SamplerPlan* plan);
Status PrepareWarpFlowChannelsLast(const TensorView& x, const TensorView* flows, int count,
                                   const GridSampleOptions& options, const double* fill,
                                   SamplerPlan* plan);

// A kept plan's fill colour as its own copy (plan->fill pointed at the caller's).
void KeepFill(SamplerPlan* plan);
// What coordinates given at preparation hold: Remap's positions, WarpFlowChannelsLast's
// offsets (one map of pairs, or two planes), GridSampleChannelsLast's grid.
enum class FixedCoordinates { kPositions, kOffsets, kGrid };
// A plan of one of those (api/remap.cc's, api/channels_last.cc's) whose coordinates' data is
// checked made into one that takes X alone: `count` tensors (one, or two planes) planned once,
// the fill colour kept in fill_storage (api/fixed_maps.cc); OutOfRange when the plan's memory
// cannot be allocated.
Status PlanFixedCoordinates(const TensorView* coords, int count, FixedCoordinates kind,
                            SamplerPlan* plan);
// Remap prepared with its maps' data (`count`: one map of pairs, or two planes), as
// Sampler::RemapFixed prepares it (api/remap.cc); the wasm module's prepareRemap.
Status PrepareRemapFixed(const TensorView& x, const TensorView* maps, int count,
                         const GridSampleOptions& options, const double* fill, SamplerPlan* plan);
// The bytes a plan holds beyond its description (the fixed maps' plan).
size_t PlanExtraBytes(const SamplerPlan& plan);

}  // namespace gridsample

#endif  // GRIDSAMPLE_API_SAMPLER_PLAN_H_
