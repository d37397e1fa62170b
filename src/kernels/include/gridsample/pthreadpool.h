// Adapter from XNNPACK's pthreadpool to gridsample::Threads: a host that has a pthreadpool_t
// runs gridsample's tiles on it. Header only; include it where pthreadpool.h is available.
#ifndef GRIDSAMPLE_PTHREADPOOL_H_
#define GRIDSAMPLE_PTHREADPOOL_H_

#include <pthreadpool.h>

#include "gridsample/threads.h"

namespace gridsample {

// Threads for `pool`: every tile of the call runs on the pool's threads (the calling one
// included, as pthreadpool does). A null pool runs the call on the calling thread.
inline Threads PthreadpoolThreads(pthreadpool_t pool) {
  Threads threads;
  threads.count = static_cast<int>(pthreadpool_get_threads_count(pool));
  threads.host = pool;
  threads.parallel_for = [](void* host, TileTask task, void* context, size_t range, size_t tile) {
    pthreadpool_parallelize_1d_tile_1d(static_cast<pthreadpool_t>(host), task, context, range, tile,
                                       0);
  };
  return threads;
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_PTHREADPOOL_H_
