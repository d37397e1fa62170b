// Public C++ API of threading: how one call spreads its output tiles over threads, on the
// library's own pool or on the caller's parallel-for.
#ifndef GRIDSAMPLE_THREADS_H_
#define GRIDSAMPLE_THREADS_H_

#include <cstddef>

namespace gridsample {

// One task of a parallel-for: the work units [start, start + count) of a call, as pthreadpool's
// pthreadpool_task_1d_tile_1d_t.
using TileTask = void (*)(void* context, size_t start, size_t count);

// A host's parallel-for: calls task(context, start, min(tile, range - start)) once for every
// start = 0, tile, 2 * tile, ... below range, on any of its threads in any order, and returns
// when every call has returned. pthreadpool_parallelize_1d_tile_1d(pool, task, context, range,
// tile, 0) is one (gridsample/pthreadpool.h adapts it).
using ParallelFor = void (*)(void* host, TileTask task, void* context, size_t range, size_t tile);

// How a call may use threads. Every operator splits its output into tiles that are computed
// independently and written once, so results are the same, bit for bit, for every count and
// every pool.
//
// Why a callback and not a pthreadpool_t: a host such as an inference runtime or a game engine
// keeps one pool of its own (pthreadpool, TBB, a job system), and Debian's libpthreadpool ships
// no static or cross-compiled library (wasm, aarch64). A function pointer serves them all and
// needs nothing at build time.
struct Threads {
  // Threads the call may use, the calling thread included. 1: the calling thread only. 0: one
  // per hardware thread. With parallel_for null, the library's pool runs count - 1 workers
  // beside the caller (started on first use and kept); with parallel_for, the number of threads
  // the host runs it on (tiles are sized for it).
  int count = 1;
  // The caller's parallel-for and its first argument; null for the library's pool.
  ParallelFor parallel_for = nullptr;
  void* host = nullptr;
};

// Calls too small to be worth a split run on the calling thread whatever the count. The
// library's pool serves one call at a time: a call that finds it busy (another thread's call,
// or a call from inside a task) runs on its own thread, never blocking on the other. A wasm
// build without -pthread runs every call on the calling thread.

}  // namespace gridsample

#endif  // GRIDSAMPLE_THREADS_H_
