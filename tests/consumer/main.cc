// An application of the installed gridsample (README's example): ONNX's GridSample example
// 'test_gridsample_nearest', the same prepared once and run on two frames, an identity
// AffineGrid, checked against the published values, and OpenCV's quarter-turn rotation matrix
// in pixel space, whose warp is a permutation of the pixels.
#include <gridsample/gridsample.h>

#include <cstdint>
#include <cstdio>

int main() {
  using namespace gridsample;
  // ONNX GridSample-16 example: X (1,1,3,2), grid (1,2,4,2), nearest, zeros, align 0.
  const float x[6] = {0, 1, 2, 3, 4, 5};
  const float grid[16] = {-1, -1, -0.5f, -0.5f, -0.2f, -0.2f, 0, 0,
                          0,  0,  -0.2f, -0.2f, 0.5f,  0.5f,  1, 1};
  const float expected[8] = {0, 0, 2, 2, 2, 2, 5, 0};
  const int64_t x_shape[4] = {1, 1, 3, 2}, grid_shape[4] = {1, 2, 4, 2}, y_shape[4] = {1, 1, 2, 4};
  float y[8];
  GridSampleOptions options;
  if (!ParseMode("nearest", &options.mode).ok()) return 1;
  Status s = GridSample({x, DType::kFloat32, x_shape, 4}, {grid, DType::kFloat32, grid_shape, 4},
                        {y, DType::kFloat32, y_shape, 4}, options);
  if (!s.ok()) {
    std::fprintf(stderr, "GridSample failed: %s\n", s.message().c_str());
    return 1;
  }
  for (int i = 0; i < 8; ++i) {
    if (y[i] != expected[i]) {
      std::fprintf(stderr, "Y[%d] = %g, expected %g\n", i, y[i], expected[i]);
      return 1;
    }
  }
  // Identity theta, size (1, 1, 1, 2), align 0: base x coordinates -0.5 and 0.5, y 0.
  const float theta[6] = {1, 0, 0, 0, 1, 0};
  const int64_t theta_shape[3] = {1, 2, 3}, size[4] = {1, 1, 1, 2}, g_shape[4] = {1, 1, 2, 2};
  float g[4];
  s = AffineGrid({theta, DType::kFloat32, theta_shape, 3}, size, 4,
                 {g, DType::kFloat32, g_shape, 4});
  const float want[4] = {-0.5f, 0, 0.5f, 0};
  for (int i = 0; i < 4; ++i) {
    if (!s.ok() || g[i] != want[i]) {
      std::fprintf(stderr, "AffineGrid: %s grid[%d] = %g, expected %g\n", s.message().c_str(), i,
                   g[i], want[i]);
      return 1;
    }
  }
  // The same GridSample prepared once (shapes, dtypes and options checked here), then run on
  // frames: the second X is the first doubled.
  Sampler sampler;
  s = Sampler::GridSample({nullptr, DType::kFloat32, x_shape, 4},
                          {nullptr, DType::kFloat32, grid_shape, 4}, options, &sampler);
  const float x2[6] = {0, 2, 4, 6, 8, 10};
  for (int frame = 0; frame < 2; ++frame) {
    if (s.ok()) s = sampler.Run(frame == 0 ? x : x2, grid, y);
    for (int i = 0; i < 8; ++i) {
      if (!s.ok() || y[i] != expected[i] * static_cast<float>(frame + 1)) {
        std::fprintf(stderr, "Sampler: %s frame %d Y[%d] = %g\n", s.message().c_str(), frame, i,
                     y[i]);
        return 1;
      }
    }
  }
  // cv.getRotationMatrix2D((1, 1), 90, 1) and cv.warpAffine on a 3x3 image: the picture turns a
  // quarter counter-clockwise, out(row i, column j) = in(row j, column 2 - i).
  const uint8_t image[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  uint8_t turned[9];
  double m[6];
  const int64_t image_shape[4] = {1, 3, 3, 1}, m_shape[3] = {1, 2, 3};
  s = RotationMatrix(1, 1, 90, 1, m);
  if (s.ok())
    s = WarpAffine({image, DType::kUint8, image_shape, 4}, {m, DType::kFloat64, m_shape, 3},
                   {turned, DType::kUint8, image_shape, 4}, options, nullptr, MatrixSpace::kPixel);
  for (int i = 0; i < 9; ++i) {
    if (!s.ok() || turned[i] != image[(i % 3) * 3 + 2 - i / 3]) {
      std::fprintf(stderr, "WarpAffine: %s out[%d] = %d\n", s.message().c_str(), i, turned[i]);
      return 1;
    }
  }
  std::printf(
      "app: GridSample, AffineGrid, a prepared call and a pixel-space warp OK (target %s)\n",
      ActiveTarget());
  return 0;
}
