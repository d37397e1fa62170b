// Loads the native benchmark's workloads from bench.mjs's inputs and runs one call (workload.h).
#include "workload.h"

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "gridsample/gridsample.h"
#if GRIDSAMPLE_BENCH_WARP_AFFINE
#include "api/validation.h"
#include "gridsample/warp_affine.h"
#endif

namespace {

using gridsample::Status;
using nlohmann::json;

template <typename T>
bool ReadRaw(const std::string& path, size_t count, std::vector<T>* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open " + path;
    return false;
  }
  out->resize(count);
  in.read(reinterpret_cast<char*>(out->data()), static_cast<std::streamsize>(count * sizeof(T)));
  if (static_cast<size_t>(in.gcount()) != count * sizeof(T)) {
    *error = path + ": expected " + std::to_string(count * sizeof(T)) + " bytes";
    return false;
  }
  return true;
}

// (1, H, W, C) <-> (1, C, H, W) for the reference of the channels-last warp.
void ToPlanar(const std::vector<uint8_t>& hwc, int64_t h, int64_t w, int64_t c,
              std::vector<uint8_t>* chw) {
  chw->resize(hwc.size());
  for (int64_t k = 0; k < c; ++k)
    for (int64_t i = 0; i < h * w; ++i) (*chw)[k * h * w + i] = hwc[i * c + k];
}

size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

gridsample::TensorView View(const std::vector<float>& data, const std::vector<int64_t>& shape) {
  return {data.data(), gridsample::DType::kFloat32, shape.data(), shape.size()};
}

gridsample::MutableTensorView MutableView(std::vector<float>& data,
                                          const std::vector<int64_t>& shape) {
  return {data.data(), gridsample::DType::kFloat32, shape.data(), shape.size()};
}

}  // namespace

void ToInterleaved(const std::vector<uint8_t>& chw, int64_t h, int64_t w, int64_t c,
                   std::vector<uint8_t>* hwc) {
  hwc->resize(chw.size());
  for (int64_t k = 0; k < c; ++k)
    for (int64_t i = 0; i < h * w; ++i) (*hwc)[i * c + k] = chw[k * h * w + i];
}

// One call of `impl` on `w` (kBaseline: GridSample workloads with a baseline only), the
// public API on `threads` threads of the library's pool.
Status Run(Workload& w, Impl impl, int threads) {
  const bool reference = impl == Impl::kReference;
  gridsample::GridSampleOptions gs = w.gs_options;
  gs.threads.count = threads;
  gridsample::AffineGridOptions ag = w.ag_options;
  ag.threads.count = threads;
  if (w.op == "WarpAffineRGBA8") {
    const gridsample::TensorView theta = View(w.grid, w.grid_shape);
    if (reference) {
      const gridsample::AffineGridOptions ref_ag{w.gs_options.align_corners, {}};
      Status s =
          gridsample::reference::AffineGrid(theta, w.ref_size.data(), w.ref_size.size(),
                                            MutableView(w.ref_grid, w.ref_grid_shape), ref_ag);
      if (!s.ok()) return s;
      return gridsample::reference::GridSample(
          {w.x8_nchw.data(), gridsample::DType::kUint8, w.nchw_shape.data(), w.nchw_shape.size()},
          View(w.ref_grid, w.ref_grid_shape),
          {w.y8_nchw.data(), gridsample::DType::kUint8, w.y_nchw_shape.data(),
           w.y_nchw_shape.size()},
          w.gs_options);
    }
#if GRIDSAMPLE_BENCH_WARP_AFFINE
    const gridsample::TensorView x8{w.x8.data(), gridsample::DType::kUint8, w.x_shape.data(),
                                    w.x_shape.size()};
    const gridsample::MutableTensorView y8{w.y8.data(), gridsample::DType::kUint8, w.y_shape.data(),
                                           w.y_shape.size()};
    const gridsample::TensorView grid = View(w.ref_grid, w.ref_grid_shape);
    switch (impl) {
      case Impl::kGridU8: return gridsample::GridSampleChannelsLast(x8, grid, y8, gs);
      case Impl::kGridF32:
        return gridsample::GridSampleChannelsLast(View(w.xf, w.x_shape), grid,
                                                  MutableView(w.yf, w.y_shape), gs);
      case Impl::kWarpF32:
        return gridsample::WarpAffine(View(w.xf, w.x_shape), theta, MutableView(w.yf, w.y_shape),
                                      gs);
      default: return gridsample::WarpAffine(x8, theta, y8, gs);
    }
#else
    return Status::InvalidArgument("built without gridsample/warp_affine.h");
#endif
  }
  if (w.op == "GridSample") {
    const bool base = impl == Impl::kBaseline;
    const bool own = base && !w.baseline_x.empty();  // a baseline of the other layout
    const auto x = own ? View(w.baseline_x, w.baseline_x_shape) : View(w.x, w.x_shape);
    const auto grid = View(w.grid, w.grid_shape);
    const auto y =
        own ? MutableView(w.baseline_y, w.baseline_y_shape) : MutableView(w.y, w.y_shape);
    if (base ? w.baseline_channels_last : w.channels_last) {
#if GRIDSAMPLE_BENCH_WARP_AFFINE
      if (!reference)
        return gridsample::GridSampleChannelsLast(x, grid, y, base ? w.baseline_options : gs);
      gridsample::ChannelsLastGeometry geo;
      const Status s = gridsample::ValidateGridSampleChannelsLast(x, grid, y, &geo);
      if (s.ok())
        gridsample::reference::Run(
            gridsample::PixelsProblem{geo, x, gridsample::GridAt{grid}, y, w.gs_options});
      return s;
#else
      return Status::InvalidArgument("built without gridsample/warp_affine.h");
#endif
    }
    return reference ? gridsample::reference::GridSample(x, grid, y, w.gs_options)
                     : gridsample::GridSample(x, grid, y, base ? w.baseline_options : gs);
  }
  const auto theta = View(w.x, w.x_shape);
  const auto grid = MutableView(w.y, w.y_shape);
  return reference ? gridsample::reference::AffineGrid(theta, w.size.data(), w.size.size(), grid,
                                                       w.ag_options)
                   : gridsample::AffineGrid(theta, w.size.data(), w.size.size(), grid, ag);
}

namespace {

// Mode and padding of a manifest entry (or of its "baseline") into `options`.
bool ParseOptions(const json& j, gridsample::GridSampleOptions* options, std::string* error) {
  Status s = gridsample::ParseMode(j.at("mode").get<std::string>(), &options->mode);
  if (s.ok()) s = gridsample::ParsePadding(j.at("padding").get<std::string>(), &options->padding);
  if (!s.ok()) *error = s.message();
  return s.ok();
}

}  // namespace

bool LoadWorkload(const std::string& dir, const json& j, Workload* w, std::string* error) {
  w->name = j.at("name").get<std::string>();
  w->op = j.at("op").get<std::string>();
  w->floor_bytes = j.at("floor_bytes").get<size_t>();
  if (w->op == "GridSample") {
    w->x_shape = j.at("x").at("shape").get<std::vector<int64_t>>();
    w->grid_shape = j.at("grid").at("shape").get<std::vector<int64_t>>();
    w->y_shape = j.at("y_shape").get<std::vector<int64_t>>();
    if (!ReadRaw(dir + "/" + j.at("x").at("file").get<std::string>(), Count(w->x_shape), &w->x,
                 error) ||
        !ReadRaw(dir + "/" + j.at("grid").at("file").get<std::string>(), Count(w->grid_shape),
                 &w->grid, error)) {
      return false;
    }
    if (!ParseOptions(j, &w->gs_options, error)) return false;
    w->gs_options.align_corners = j.at("align_corners").get<bool>();
    w->channels_last = j.value("layout", "nchw") == "nhwc";
    w->has_baseline = j.contains("baseline");
    w->baseline_options = w->gs_options;
    w->baseline_channels_last = w->channels_last;
    if (w->has_baseline) {
      const json& b = j.at("baseline");
      if (!ParseOptions(b, &w->baseline_options, error)) return false;
      if (b.contains("x")) {  // another layout: its X and Y
        w->baseline_channels_last = b.value("layout", "nchw") == "nhwc";
        w->baseline_x_shape = b.at("x").at("shape").get<std::vector<int64_t>>();
        w->baseline_y_shape = b.at("y_shape").get<std::vector<int64_t>>();
        if (!ReadRaw(dir + "/" + b.at("x").at("file").get<std::string>(),
                     Count(w->baseline_x_shape), &w->baseline_x, error)) {
          return false;
        }
        w->baseline_y.assign(Count(w->baseline_y_shape), 0.0f);
      }
    }
  } else if (w->op == "AffineGrid") {
    w->x_shape = j.at("theta").at("shape").get<std::vector<int64_t>>();
    w->size = j.at("size").get<std::vector<int64_t>>();
    w->y_shape = j.at("grid_shape").get<std::vector<int64_t>>();
    if (!ReadRaw(dir + "/" + j.at("theta").at("file").get<std::string>(), Count(w->x_shape), &w->x,
                 error)) {
      return false;
    }
    w->ag_options.align_corners = j.at("align_corners").get<bool>();
  } else if (w->op == "WarpAffineRGBA8") {
    w->x_shape = j.at("image").at("shape").get<std::vector<int64_t>>();  // (1, H, W, 4)
    w->grid_shape = j.at("theta").at("shape").get<std::vector<int64_t>>();
    w->y_shape = j.at("y_shape").get<std::vector<int64_t>>();
    if (!ReadRaw(dir + "/" + j.at("image").at("file").get<std::string>(), Count(w->x_shape), &w->x8,
                 error) ||
        !ReadRaw(dir + "/" + j.at("theta").at("file").get<std::string>(), Count(w->grid_shape),
                 &w->grid, error)) {
      return false;
    }
    w->gs_options = {};  // bilinear, zeros, align_corners 0
    const int64_t h = w->x_shape[1], wd = w->x_shape[2], c = w->x_shape[3];
    const int64_t ho = w->y_shape[1], wo = w->y_shape[2];
    w->nchw_shape = {1, c, h, wd};
    w->ref_size = {1, c, ho, wo};
    w->ref_grid_shape = {1, ho, wo, 2};
    w->y_nchw_shape = {1, c, ho, wo};
    ToPlanar(w->x8, h, wd, c, &w->x8_nchw);
    w->ref_grid.assign(Count(w->ref_grid_shape), 0.0f);
    w->y8_nchw.assign(Count(w->y_nchw_shape), 0);
    w->out_elems = Count(w->y_shape);
    w->y8.assign(w->out_elems, 0);
    w->xf.assign(w->x8.begin(), w->x8.end());
    w->yf.assign(w->out_elems, 0.0f);
    // The grid of theta (bit for bit the reference's, which recomputes it in every call).
    const Status s =
        gridsample::AffineGrid(View(w->grid, w->grid_shape), w->ref_size.data(), w->ref_size.size(),
                               MutableView(w->ref_grid, w->ref_grid_shape),
                               gridsample::AffineGridOptions{w->gs_options.align_corners, {}});
    if (!s.ok()) *error = "AffineGrid of theta: " + s.message();
    return s.ok();
  } else {
    *error = "unknown op " + w->op;
    return false;
  }
  w->out_elems = Count(w->y_shape);
  w->y.assign(w->out_elems, 0.0f);
  return true;
}
