// The fluent tester of every fast-path test (XNNPACK style): one problem against the reference.
#ifndef GRIDSAMPLE_TESTS_NATIVE_FAST_PATH_TESTER_H_
#define GRIDSAMPLE_TESTS_NATIVE_FAST_PATH_TESTER_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "api/validation.h"
#include "drivers/fast.h"
#include "gridsample/warp_affine.h"
#include "gridsample/warp_flow.h"
#include "gtest/gtest.h"
#include "oracles.h"
#include "test_util.h"

namespace gridsample_test {

// ---------------------------------------------------------------------------
// What one FastPathTester::Test() did: whether the fast path ran (false when the public entry
// point was tested), how many values it compared and how many of those differ from the
// oracle's bits at all (within the tolerance or not).
struct FastPathRun {
  bool ran = false;
  int64_t values = 0;
  int64_t differing = 0;
};

// Configures one problem of one operator, runs it on the fast path (or the public entry
// point) and compares every output value with the scalar reference:
//
//   FastPathTester().x(x).grid(grid).mode(m).padding(p).align(a).fast_path(true).Test();
//   FastPathTester().batch(2).channels(3).in({5, 7}).out({4, 9}).x_dtype(DType::kUint8)
//       .tolerance(1.0).seed(7).Test();
//
// X and the grid are random (from seed) unless given; theta must be given. A failure names
// the target, operator, mode, padding, align_corners, the output pixel (coordinates, batch
// and channel), the values, their tolerance and the inputs' shapes. Test() fails fatally
// (check HasFatalFailure() to stop a loop).
class FastPathTester {
 public:
  enum class Op {
    kGridSample,              // NCHW X, any rank
    kGridSampleChannelsLast,  // NHWC X, 2-D grid
    kWarpAffine,              // NHWC X, theta (N, 2, 3), Y (N, out[0], out[1], C)
    kWarpPerspective,         // NHWC X, H (N, 3, 3) given as theta(), Y as WarpAffine's
    kRemap,                   // NHWC X, maps(): (N, Ho, Wo, 2) or two planes (N, Ho, Wo)
    kWarpFlow,                // NCHW X (N, C, H, W), flow() (N, 2, Ho, Wo)
    kAffineGrid,              // theta (N, r, r+1), size (N, channels, out...)
  };

  FastPathTester& op(Op o) { return Set(&op_, o); }
  FastPathTester& batch(int64_t n) { return Set(&n_, n); }
  FastPathTester& channels(int64_t c) { return Set(&c_, c); }
  FastPathTester& in(std::vector<int64_t> s) { return Set(&in_, std::move(s)); }
  FastPathTester& out(std::vector<int64_t> s) { return Set(&out_, std::move(s)); }
  FastPathTester& x_dtype(DType t) { return Set(&x_dtype_, t); }
  FastPathTester& grid_dtype(DType t) { return Set(&grid_dtype_, t); }
  FastPathTester& grid_range(double r) { return Set(&grid_range_, r); }
  FastPathTester& seed(uint32_t s) { return Set(&seed_, s); }
  // Given inputs (their shapes override batch, channels, in and out where they fix them).
  FastPathTester& x(Tensor t) { return Set(&x_, std::move(t)); }
  FastPathTester& grid(Tensor t) { return Set(&grid_, std::move(t)); }
  FastPathTester& theta(Tensor t) { return Set(&theta_, std::move(t)); }
  // WarpFlow's flow (N, 2, Ho, Wo), float32 pixels.
  FastPathTester& flow(Tensor f) { return Set(&flow_, std::move(f)); }
  // Remap's pixel maps: one interleaved (N, Ho, Wo, 2), or map_x and map_y (N, Ho, Wo).
  FastPathTester& maps(Tensor map_x, std::optional<Tensor> map_y = std::nullopt) {
    map_x_ = std::move(map_x);
    map_y_ = std::move(map_y);
    return *this;
  }

  FastPathTester& mode(Mode m) { return Set(&options_.mode, m); }
  FastPathTester& padding(Padding p) { return Set(&options_.padding, p); }
  FastPathTester& align(bool a) { return Set(&options_.align_corners, a); }

  // Calls the fast path itself and requires it to run exactly when `expected` (which
  // problems it takes is part of its contract); when it does not, the public entry point is
  // tested instead. Without this, the public entry point is tested.
  FastPathTester& fast_path(bool expected) { return Set(&fast_path_, expected); }
  // The same, expecting the fast path to run exactly when its own Covers* query says so.
  FastPathTester& fast_path() { return Set(&covers_, true); }

  // Bit for bit (the default), or values within abs + rel * max(1, |want|) + ulps * (the
  // output dtype's spacing at want); nan_equal lets NaN match NaN (any payload).
  FastPathTester& bit_exact() { return Set(&values_, false); }
  FastPathTester& tolerance(double abs, double rel = 0.0, double ulps = 0.0) {
    values_ = true;
    abs_ = abs;
    rel_ = rel;
    ulps_ = ulps;
    return *this;
  }
  FastPathTester& nan_equal(bool b) { return Set(&nan_equal_, b); }

  FastPathRun Test() const {
    FastPathRun run;
    Check(&run);
    return run;
  }

 private:
  template <typename Field, typename Value>
  FastPathTester& Set(Field* field, Value value) {
    *field = std::move(value);
    return *this;
  }

  bool channels_last() const {
    return op_ == Op::kGridSampleChannelsLast || op_ == Op::kWarpAffine ||
           op_ == Op::kWarpPerspective || op_ == Op::kRemap;
  }
  bool has_grid() const { return op_ == Op::kGridSample || op_ == Op::kGridSampleChannelsLast; }

  Tensor MakeX() const {
    if (x_) return *x_;
    std::mt19937 rng(seed_);
    const std::vector<int64_t> shape = channels_last()
                                           ? std::vector<int64_t>{n_, in_.at(0), in_.at(1), c_}
                                           : TensorShape(n_, c_, in_);
    return RandomTensor(rng, x_dtype_, shape);
  }
  Tensor MakeGrid() const {
    if (grid_) return *grid_;
    std::mt19937 rng(seed_ * 7919u + 1u);
    return RandomGrid(rng, grid_dtype_, GridShape(n_, out_), grid_range_);
  }

  // AffineGrid's size argument (N, C, out...).
  std::vector<int64_t> Size() const {
    std::vector<int64_t> size{theta_->shape()[0], c_};
    size.insert(size.end(), out_.begin(), out_.end());
    return size;
  }

  Tensor Oracle(const Tensor& x, const Tensor& grid) const {
    switch (op_) {
      case Op::kGridSample: {
        Tensor y;
        const Status s = RunGridSample(&gridsample::reference::GridSample, x, grid, options_, &y);
        EXPECT_TRUE(s.ok()) << s.message();
        return y;
      }
      case Op::kGridSampleChannelsLast: return OracleGridSample(x, grid, options_);
      case Op::kWarpAffine: return OracleWarpAffine(x, *theta_, out_.at(0), out_.at(1), options_);
      case Op::kWarpPerspective:
        return OracleWarpPerspective(x, *theta_, out_.at(0), out_.at(1), options_);
      case Op::kWarpFlow: {
        Tensor y;
        const Status s = ReferenceWarpFlow(x, *flow_, options_, &y);
        EXPECT_TRUE(s.ok()) << s.message();
        return y;
      }
      case Op::kRemap: {
        Tensor y;
        const Status s = ReferenceRemap(x, *map_x_, map_y_ ? &*map_y_ : nullptr, options_, &y);
        EXPECT_TRUE(s.ok()) << s.message();
        return y;
      }
      case Op::kAffineGrid: {
        const std::vector<int64_t> size = Size();
        Tensor g(theta_->dtype(), GridShape(size[0], out_));
        const Status s =
            gridsample::reference::AffineGrid(theta_->View(), size.data(), size.size(),
                                              g.MutableView(), {options_.align_corners, {}});
        EXPECT_TRUE(s.ok()) << s.message();
        return g;
      }
    }
    return Tensor();
  }

  bool planes() const { return op_ == Op::kGridSample || op_ == Op::kWarpFlow; }

  // The validated problem of an NCHW sampling op, as its public entry point builds it.
  gridsample::PlanesProblem Planes(const Tensor& x, const Tensor& grid, Tensor* y) const {
    gridsample::GridSampleGeometry geo;
    gridsample::PlanesProblem::Source source = gridsample::GridAt{grid.View()};
    Status s;
    if (op_ == Op::kWarpFlow) {
      s = gridsample::ValidateWarpFlow(x.View(), flow_->View(), y->MutableView(), &geo);
      source = gridsample::FlowAt{flow_->View()};
    } else {
      s = gridsample::ValidateGridSample(x.View(), grid.View(), y->MutableView(), &geo);
    }
    EXPECT_TRUE(s.ok()) << s.message();
    return {geo, x.View(), source, y->MutableView(), options_};
  }

  // The same for a channels-last one.
  gridsample::PixelsProblem Pixels(const Tensor& x, const Tensor& grid, Tensor* y) const {
    gridsample::ChannelsLastGeometry geo;
    gridsample::PixelsProblem::Source source = gridsample::GridAt{grid.View()};
    Status s;
    switch (op_) {
      case Op::kWarpAffine:
        s = gridsample::ValidateWarpAffine(x.View(), theta_->View(), y->MutableView(), &geo);
        source = gridsample::AffineAt{theta_->View()};
        break;
      case Op::kWarpPerspective:
        s = gridsample::ValidateWarpPerspective(x.View(), theta_->View(), y->MutableView(), &geo);
        source = gridsample::PerspectiveAt{theta_->View()};
        break;
      case Op::kRemap: {
        const TensorView maps[2] = {map_x_->View(), map_y_ ? map_y_->View() : TensorView{}};
        s = gridsample::ValidateRemap(gridsample::kRemapMaps, x.View(), maps, map_y_ ? 2 : 1,
                                      y->MutableView(), &geo);
        if (map_y_) {
          source = gridsample::MapPlanesAt{maps[0], maps[1]};
        } else {
          source = gridsample::MapPairsAt{maps[0]};
        }
        break;
      }
      default:
        s = gridsample::ValidateGridSampleChannelsLast(x.View(), grid.View(), y->MutableView(),
                                                       &geo);
        break;
    }
    EXPECT_TRUE(s.ok()) << s.message();
    return {geo, x.View(), source, y->MutableView(), options_};
  }

  // Runs the fast path into y: whether it ran. The only test code that calls drivers/fast.h: when
  // its entry points change, this is the place to follow them.
  bool RunFast(const Tensor& x, const Tensor& grid, Tensor* y) const {
    namespace fast = gridsample::fast;
    if (op_ == Op::kAffineGrid) {
      const std::vector<int64_t> size = Size();
      gridsample::AffineGridGeometry geo;
      EXPECT_TRUE(gridsample::ValidateAffineGrid(theta_->View(), size.data(), size.size(),
                                                 y->MutableView(), &geo)
                      .ok());
      return fast::TryAffineGrid(geo, theta_->View(), y->MutableView(),
                                 {options_.align_corners, {}});
    }
    return planes() ? fast::Try(Planes(x, grid, y)) : fast::Try(Pixels(x, grid, y));
  }

  // Whether the fast path takes the problem, by its own Covers queries.
  bool Covered(const Tensor& x, const Tensor& grid, Tensor* y) const {
    namespace fast = gridsample::fast;
    if (op_ == Op::kAffineGrid) {
      return theta_->dtype() == DType::kFloat32 || theta_->dtype() == DType::kFloat64;
    }
    return planes() ? fast::Covers(Planes(x, grid, y)) : fast::Covers(Pixels(x, grid, y));
  }

  Status RunPublic(const Tensor& x, const Tensor& grid, Tensor* y) const {
    switch (op_) {
      case Op::kGridSample:
        return gridsample::GridSample(x.View(), grid.View(), y->MutableView(), options_);
      case Op::kGridSampleChannelsLast:
        return gridsample::GridSampleChannelsLast(x.View(), grid.View(), y->MutableView(),
                                                  options_);
      case Op::kWarpAffine:
        return gridsample::WarpAffine(x.View(), theta_->View(), y->MutableView(), options_);
      case Op::kWarpPerspective:
        return gridsample::WarpPerspective(x.View(), theta_->View(), y->MutableView(), options_);
      case Op::kWarpFlow:
        return gridsample::WarpFlow(x.View(), flow_->View(), y->MutableView(), options_);
      case Op::kRemap:
        return map_y_ ? gridsample::Remap(x.View(), map_x_->View(), map_y_->View(),
                                          y->MutableView(), options_)
                      : gridsample::Remap(x.View(), map_x_->View(), y->MutableView(), options_);
      case Op::kAffineGrid: {
        const std::vector<int64_t> size = Size();
        return gridsample::AffineGrid(theta_->View(), size.data(), size.size(), y->MutableView(),
                                      {options_.align_corners, {}});
      }
    }
    return Status::Ok();
  }

  // The failure message's parts (fast_path_tester_messages.h): the operator and its options,
  // the output pixel and what it was computed from, the inputs' shapes.
  static const char* OpName(Op o);
  std::string What() const;
  std::string Where(const Tensor& y, int64_t flat, const Tensor& grid) const;
  std::string Inputs(const Tensor& x, const Tensor& grid) const;

  // Allowed |got - want| for the oracle's value want (values_ only).
  double Allowed(double want, DType t) const {
    return abs_ + rel_ * std::max(1.0, std::fabs(want)) + ulps_ * Ulp(want, t);
  }

  void Check(FastPathRun* run) const {
    if (op_ == Op::kWarpFlow) {
      ASSERT_TRUE(flow_.has_value()) << "WarpFlow needs flow()";
    } else if (op_ == Op::kRemap) {
      ASSERT_TRUE(map_x_.has_value()) << "Remap needs maps()";
    } else if (!has_grid()) {
      ASSERT_TRUE(theta_.has_value()) << OpName(op_) << " needs theta()";
    }
    const Tensor x = op_ == Op::kAffineGrid ? Tensor() : MakeX();
    const Tensor grid = has_grid() ? MakeGrid() : Tensor();
    const Tensor want = Oracle(x, grid);
    Tensor got(want.dtype(), want.shape());
    got.FillBytes(0xA5);
    if (fast_path_ || covers_) {
      const bool expected = fast_path_ ? *fast_path_ : Covered(x, grid, &got);
      run->ran = RunFast(x, grid, &got);
      ASSERT_EQ(run->ran, expected)
          << What() << ": the fast path " << (run->ran ? "ran" : "did not run") << " on "
          << Inputs(x, grid) << " (which problems it takes is part of its contract)";
    }
    if (!run->ran) {
      const Status s = RunPublic(x, grid, &got);
      ASSERT_TRUE(s.ok()) << What() << ": " << s.message();
    }
    const size_t e = ElementSize(want.dtype());
    const auto* got_bits = static_cast<const uint8_t*>(got.data());
    const auto* want_bits = static_cast<const uint8_t*>(want.data());
    int64_t first_bad = -1, bad = 0;
    for (int64_t i = 0; i < want.size(); ++i) {
      if (std::memcmp(got_bits + i * e, want_bits + i * e, e) == 0) continue;
      ++run->differing;
      const double g = got.Get(i), w = want.Get(i);
      const bool ok = values_ && (g == w || std::fabs(g - w) <= Allowed(w, want.dtype()) ||
                                  (nan_equal_ && std::isnan(g) && std::isnan(w)));
      if (ok) continue;
      if (first_bad < 0) first_bad = i;
      ++bad;
    }
    run->values = want.size();
    if (first_bad < 0) return;
    const double g = got.Get(first_bad), w = want.Get(first_bad);
    std::ostringstream allowed;
    if (values_) {
      allowed << "allowed " << Allowed(w, want.dtype());
    } else {
      allowed << "bit for bit";
    }
    FAIL() << What() << " at " << Where(want, first_bad, grid) << ": got " << g << " want " << w
           << " (" << allowed.str() << "; " << bad << " of " << want.size() << " values off)\n"
           << "  " << Inputs(x, grid) << ", " << (run->ran ? "fast path" : "public entry point");
  }

  Op op_ = Op::kGridSample;
  int64_t n_ = 1;
  int64_t c_ = 2;
  std::vector<int64_t> in_{5, 7};
  std::vector<int64_t> out_{4, 9};
  DType x_dtype_ = DType::kFloat32;
  DType grid_dtype_ = DType::kFloat32;
  double grid_range_ = 1.25;
  uint32_t seed_ = 1;
  std::optional<Tensor> x_, grid_, theta_, map_x_, map_y_, flow_;
  GridSampleOptions options_;
  std::optional<bool> fast_path_;
  bool covers_ = false;
  bool values_ = false;
  double abs_ = 0.0, rel_ = 0.0, ulps_ = 0.0;
  bool nan_equal_ = false;
};

}  // namespace gridsample_test

// FastPathTester's message members, defined apart from the class.
#include "fast_path_tester_messages.h"

#endif  // GRIDSAMPLE_TESTS_NATIVE_FAST_PATH_TESTER_H_
