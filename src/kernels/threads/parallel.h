// Splitting a call's work units into pieces for its threads (DESIGN.md section 10): how large a
// piece is, and running the pieces on the library's pool or the caller's parallel-for.
#ifndef GRIDSAMPLE_THREADS_PARALLEL_H_
#define GRIDSAMPLE_THREADS_PARALLEL_H_

#include <cstddef>
#include <cstdint>

#include "gridsample/threads.h"

// Whether this build can run threads: every build but wasm without -pthread, where each call
// runs on the calling thread (also with a caller's parallel-for) and no split is compiled in.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define GRIDSAMPLE_HAS_THREADS 0
#else
#define GRIDSAMPLE_HAS_THREADS 1
#endif

namespace gridsample {

// Most threads one call uses: the caller and kMaxThreads - 1 workers (the wasm binding clamps
// setThreads to it; js/core/load_wasm.mjs's MAX_THREADS, checked against it in threads.test.mjs).
inline constexpr int kMaxThreads = 64;

// A piece is worth handing to another thread from about this much work: output values times
// the taps each reads, plus the pixels' planning (bench/README.md, "Threads"). In wasm a
// sleeping worker wakes more slowly and the kernels run about 4 times slower, so a call splits
// there only from about 0.6 ms of work (2 x 2^19 units): 512x512 AffineGrid ran slower on 2
// threads than on 1 with 2^16.
#if defined(__EMSCRIPTEN__)
inline constexpr int64_t kMinPieceCost = int64_t{1} << 19;
#else
inline constexpr int64_t kMinPieceCost = int64_t{1} << 16;
#endif

// The smallest piece in use: kMinPieceCost, unless a test set another (so that the threading
// tests split the same calls in every build).
int64_t MinPieceCost();
void SetMinPieceCostForTest(int64_t cost);

// The cost of one output pixel in those units: `channels` values of `taps` taps each, plus its
// coordinates and plan (worth about 16 taps).
inline int64_t PixelCost(int64_t channels, int taps) { return channels * taps + 16; }

// The threads `threads` asks for (0: one per hardware thread), at least 1.
int ThreadCount(const Threads& threads);

// Units per piece for `units` units of `unit_cost` each: several pieces per thread (threads
// that finish early take more), none below MinPieceCost(); `units` (one piece, no split) when
// one thread is asked for or the call is too small.
int64_t PieceUnits(const Threads& threads, int64_t units, int64_t unit_cost);

// task(context, start, count) for the pieces of `piece` units of [0, units), on the caller's
// parallel-for, else on the library's pool (the calling thread takes pieces too), else (pool
// busy or absent) one after another on the calling thread.
void RunPieces(const Threads& threads, TileTask task, void* context, int64_t units, int64_t piece);

// Work units of an image-like output: one row of one column tile of one batch item, numbered
// item by item, then column tile by column tile, then row by row (the order of the serial
// loops, which compute a tile's column terms once for all its rows).
struct RowUnits {
  int64_t tiles;  // column tiles per row
  int64_t rows;   // rows per item (D * H for a volume)
  int64_t PerItem() const { return tiles * rows; }
  int64_t Item(int64_t unit) const { return unit / PerItem(); }
  int64_t Tile(int64_t unit) const { return unit % PerItem() / rows; }
  int64_t Row(int64_t unit) const { return unit % rows; }
};

// body(begin, end) over [0, units) in pieces for the call's threads. Each unit's output must
// depend only on the unit, so results do not depend on the split.
template <class Body>
void ParallelUnits(const Threads& threads, int64_t units, int64_t unit_cost, const Body& body) {
  const TileTask task = [](void* context, size_t start, size_t count) {
    const Body& b = *static_cast<const Body*>(context);
    b(static_cast<int64_t>(start), static_cast<int64_t>(start + count));
  };
#if GRIDSAMPLE_HAS_THREADS
  const int64_t piece = PieceUnits(threads, units, unit_cost);
  if (piece < units) {
    RunPieces(threads, task, const_cast<Body*>(&body), units, piece);
    return;
  }
  body(int64_t{0}, units);
#else
  // One piece, through a pointer the optimisers cannot follow: with `body` called once,
  // binaryen inlines it into its driver at any size, and V8 then allocates registers over the
  // whole driver at once and compiles it late (the deformable attention's blend loop spilled its
  // sums and the memory base: 11% more instructions per output; bench/README.md). The threaded
  // build calls `body` from two places, which keeps it a function of its own.
  (void)threads;
  (void)unit_cost;
  const TileTask volatile opaque = task;
  opaque(const_cast<Body*>(&body), 0, static_cast<size_t>(units));
#endif
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_THREADS_PARALLEL_H_
