// The checks of the channels-last calls (channels_last_checks.h).
#include "problem/channels_last_checks.h"

#include <string>

namespace gridsample {

const MapNames kRemapMaps = {"Remap", "map", {"map_x", "map_y"}, "pixel coordinates"};
const MapNames kFlowMaps = {"WarpFlowChannelsLast", "flow", {"flow_x", "flow_y"}, "pixel offsets"};

Status CheckChannelsLastX(const char* op, const TensorView& x, int64_t* x_count) {
  if (x.rank != 4) {
    return Invalid(op, "X: expected rank 4 (N, H, W, C), got rank " + std::to_string(x.rank) +
                           (x.shape ? " shape " + ShapeString(x.shape, x.rank) : std::string()));
  }
  return CheckInput<Given::kShapesAndDTypes>(op, "X", x, x_count);
}

Status ChannelsLastOutput(const char* op, const TensorView& x, int64_t x_count,
                          const int64_t* y_shape, ChannelsLastGeometry* geometry) {
  Status s = CheckOutputSize(op, "a dimension", x, x_count, y_shape, DTypeSize(x.dtype));
  if (!s.ok()) return s;
  geometry->n = x.shape[0];
  geometry->in_h = x.shape[1];
  geometry->in_w = x.shape[2];
  geometry->c = x.shape[3];
  geometry->out_h = y_shape[1];
  geometry->out_w = y_shape[2];
  geometry->row0 = 0;
  geometry->rows = y_shape[1];
  return Status::Ok();
}

Status CheckMaps(const MapNames& names, const TensorView& x, const TensorView* maps, int count,
                 int64_t* counts) {
  const char* op = names.op;
  const bool planes = count == 2;
  const size_t rank = planes ? 3 : 4;
  const char* expected = planes ? "[N, Ho, Wo]" : "[N, Ho, Wo, 2]";
  for (int k = 0; k < count; ++k) {
    const TensorView& m = maps[k];
    const std::string name = planes ? names.planes[k] : names.pairs;
    if (m.dtype != DType::kFloat32) {
      return Invalid(op, name + ": expected dtype float32 (" + names.values + "), got " +
                             DTypeString(m.dtype));
    }
    Status s = CheckInput<Given::kShapesAndDTypes>(op, name.c_str(), m, &counts[k]);
    if (!s.ok()) return s;
    if (m.rank != rank || (!planes && m.shape[3] != 2) || m.shape[0] != x.shape[0]) {
      return Invalid(op, name + ": expected shape " + expected +
                             " with N = " + std::to_string(x.shape[0]) + " (X's), got " +
                             ShapeString(m.shape, m.rank));
    }
  }
  if (planes) {
    for (size_t i = 0; i < 3; ++i) {
      if (maps[1].shape[i] != maps[0].shape[i]) {
        return Invalid(op, std::string(names.planes[1]) + ": expected " + names.planes[0] +
                               "'s shape " + ShapeString(maps[0].shape, 3) + ", got " +
                               ShapeString(maps[1].shape, 3));
      }
    }
  }
  return Status::Ok();
}

}  // namespace gridsample
