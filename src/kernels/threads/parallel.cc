// The library's thread pool (persistent workers, one call at a time) and the piece sizes that
// decide whether a call is split at all.
#include "threads/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#if GRIDSAMPLE_HAS_THREADS
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <vector>

#include "threads/wake_choice.h"
#endif

namespace gridsample {
namespace {

// Pieces per thread when a call is split: threads that finish early take more.
constexpr int64_t kPiecesPerThread = 16;
// How long a worker looks for the next call before it sleeps, and a call for its workers'
// last pieces before it sleeps (bench/README.md, "Threads"): long spins slowed the calls of
// other threads on this machine's cores.
constexpr std::chrono::microseconds kSpin{50};
// A call that finds its workers asleep times at most this share of its units alone first.
constexpr size_t kProbeShare = 32;

// Yields until `done()` or kSpin has passed; returns done().
template <class Done>
bool SpinUntil(const Done& done) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::yield();
  }
  return true;
}

// The pieces of one call, taken in order by whichever thread asks next.
struct Job {
  TileTask task;
  void* context;
  size_t units, piece;
  std::atomic<size_t> next{0};

  // Runs units [0, count) on the calling thread, before any worker joins.
  void WorkFirst(size_t count) {
    next.store(count, std::memory_order_relaxed);
    task(context, 0, count);
  }

  void Work() {
    for (;;) {
      const size_t start = next.fetch_add(piece, std::memory_order_relaxed);
      if (start >= units) return;
      task(context, start, std::min(piece, units - start));
    }
  }
};

#if GRIDSAMPLE_HAS_THREADS

using Clock = std::chrono::steady_clock;

int64_t Since(Clock::time_point from) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - from).count();
}

// Workers that wait between calls (looking for one for a while, then asleep). A call posts its
// Job, takes pieces itself, then closes the job and waits for the workers still inside it; a
// worker that wakes late finds no job, so the call never waits for a worker that has not
// started (wasm threads start only when the page's event loop runs if the pool of pthread
// workers was too small).
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  // False (nothing run) while another call holds the pool.
  bool TryRun(int threads, TileTask task, void* context, size_t units, size_t piece) {
    std::unique_lock<std::mutex> call(call_, std::try_to_lock);
    if (!call.owns_lock()) return false;
    const int helpers = Grow(threads - 1);
    Job job{task, context, units, piece};
    bool asleep;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      asleep = helpers > 0 && asleep_ >= helpers;
    }
    // Workers asleep: the call runs a first slice alone (a piece, at most 1/kProbeShare of the
    // call: a call of two pieces would otherwise spend half its work deciding), and WakeChoice
    // decides from its time.
    bool timed = false;
    int64_t estimate_us = 0;
    Clock::time_point from;
    if (asleep && !AlwaysWake()) {
      const size_t probe = std::max<size_t>(1, std::min(piece, units / kProbeShare));
      const Clock::time_point start = Clock::now();
      job.WorkFirst(probe);
      from = Clock::now();
      const std::chrono::duration<double, std::micro> first = from - start;
      estimate_us = static_cast<int64_t>(first.count() * static_cast<double>(units - probe) /
                                         static_cast<double>(probe));
      timed = true;
      if (!wake_choice_.Wake(estimate_us)) {
        job.Work();
        wake_choice_.Record(estimate_us, false, Since(from));
        return true;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
      allowed_ = helpers;
      joined_ = 0;
    }
    wake_.notify_all();
    job.Work();
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = nullptr;  // no worker joins any more; those inside finish their last pieces
    lock.unlock();
    SpinUntil([this] { return inside_.load(std::memory_order_acquire) == 0; });
    lock.lock();
    idle_.wait(lock, [this] { return inside_.load(std::memory_order_relaxed) == 0; });
    if (timed) wake_choice_.Record(estimate_us, true, Since(from));
    return true;
  }

 private:
  // Starts workers up to `count` (fewer if the system refuses threads); returns how many run.
  int Grow(int count) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (static_cast<int>(workers_.size()) < count) {
      try {
        workers_.emplace_back([this] { Serve(); });
      } catch (const std::system_error&) {
        break;
      }
    }
    return std::min(count, static_cast<int>(workers_.size()));
  }

  void Serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    uint64_t seen = generation_.load(std::memory_order_relaxed);
    for (;;) {
      // A call that follows soon (a frame loop, a model's next node) finds this worker awake:
      // it looks for one for a while before it sleeps.
      lock.unlock();
      SpinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; });
      lock.lock();
      ++asleep_;
      wake_.wait(lock, [&] {
        return stop_ || (job_ != nullptr && generation_.load(std::memory_order_relaxed) != seen);
      });
      --asleep_;
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      if (joined_ >= allowed_) continue;  // the call asked for fewer threads
      ++joined_;
      inside_.fetch_add(1, std::memory_order_relaxed);
      Job* job = job_;
      lock.unlock();
      job->Work();
      lock.lock();
      if (inside_.fetch_sub(1, std::memory_order_release) == 1) idle_.notify_all();
    }
  }

  std::mutex call_;   // held for a whole call
  std::mutex mutex_;  // guards what follows
  std::condition_variable wake_, idle_;
  std::vector<std::thread> workers_;
  Job* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};  // calls posted so far (written under mutex_)
  int allowed_ = 0, joined_ = 0;
  int asleep_ = 0;              // workers waiting on wake_ (no longer looking for a call)
  WakeChoice wake_choice_;      // guarded by call_
  std::atomic<int> inside_{0};  // workers in the current call (changed under mutex_)
  bool stop_ = false;
};

Pool& SharedPool() {
  static Pool pool;
  return pool;
}

#endif  // GRIDSAMPLE_HAS_THREADS

}  // namespace

namespace {
std::atomic<int64_t> min_piece_cost{kMinPieceCost};
}  // namespace

int64_t MinPieceCost() { return min_piece_cost.load(std::memory_order_relaxed); }

void SetMinPieceCostForTest(int64_t cost) { min_piece_cost.store(cost, std::memory_order_relaxed); }

int ThreadCount(const Threads& threads) {
  int count = threads.count;
  if (count == 0) count = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(count, 1, kMaxThreads);
}

int64_t PieceUnits(const Threads& threads, int64_t units, int64_t unit_cost) {
  const int count = ThreadCount(threads);
  if (count <= 1 || units <= 1) return units;
  const int64_t cost = std::max<int64_t>(unit_cost, 1);
  const int64_t smallest = (MinPieceCost() + cost - 1) / cost;  // units in the smallest piece
  if (units < 2 * smallest) return units;                       // not worth a second thread
  const int64_t even = (units + count * kPiecesPerThread - 1) / (count * kPiecesPerThread);
  return std::max(even, smallest);
}

void RunPieces(const Threads& threads, TileTask task, void* context, int64_t units, int64_t piece) {
  const size_t n = static_cast<size_t>(units), p = static_cast<size_t>(piece);
  if (threads.parallel_for != nullptr) {
    threads.parallel_for(threads.host, task, context, n, p);
    return;
  }
#if GRIDSAMPLE_HAS_THREADS
  if (SharedPool().TryRun(ThreadCount(threads), task, context, n, p)) return;
#endif
  Job job{task, context, n, p};
  job.Work();
}

}  // namespace gridsample
