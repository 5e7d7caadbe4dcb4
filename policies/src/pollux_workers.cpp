#include "pollux_workers.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace vnsim::pollux {

namespace {
// A short wait in a spin loop (the other lane is usually microseconds
// away); after many, the core is given to other processes instead.
void relax(int& spins) {
  if (++spins < 4096) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  } else {
    std::this_thread::yield();
  }
}
}  // namespace

SearchWorkers::SearchWorkers(int lanes, bool back_off) : may_back_off_(back_off) {
  for (int lane = 1; lane < lanes; ++lane) threads_.emplace_back([this, lane] { work(lane); });
}

SearchWorkers::~SearchWorkers() {
  stop_.store(true, std::memory_order_release);
  claim_.fetch_add(std::uint64_t{1} << 32, std::memory_order_acq_rel);  // wakes the waiters
  claim_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void SearchWorkers::begin(std::size_t items, Task task, void* context) {
  ++epoch_;
  // Closed first (no item claimable), so that a thread still holding the
  // last epoch's claim word cannot pair it with this epoch's item count.
  claim_.store((epoch_ << 32) | kItemMask, std::memory_order_release);
  items_.store(items, std::memory_order_relaxed);
  ready_.store(0, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  own_ = 0;
  task_.store(task, std::memory_order_relaxed);
  context_.store(context, std::memory_order_relaxed);
  claim_.store(epoch_ << 32, std::memory_order_release);
  claim_.notify_all();
}

bool SearchWorkers::run_next(int lane) {
  std::uint64_t c = claim_.load(std::memory_order_acquire);
  for (;;) {
    const std::size_t item = c & kItemMask;
    if (item >= items_.load(std::memory_order_relaxed)) return false;
    if (claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
      // The epoch cannot end before this item is done: its fields stay.
      int spins = 0;
      while (ready_.load(std::memory_order_acquire) <= item) relax(spins);
      task_.load(std::memory_order_relaxed)(context_.load(std::memory_order_relaxed), item, lane);
      if (lane == 0)
        ++own_;  // counted apart: only the caller waits for done_
      else
        done_.fetch_add(1, std::memory_order_acq_rel);
      return true;
    }
  }
}

void SearchWorkers::finish() {
  while (run_next(0)) {
  }
  const std::size_t items = items_.load(std::memory_order_relaxed);
  int spins = 0;
  while (own_ + done_.load(std::memory_order_acquire) < items) relax(spins);
  const bool lazy = 5 * (items - own_) < items;
  lazy_ = lazy ? lazy_ + 1 : 0;
  if (lazy_ >= kLazyInARow && may_back_off_) {
    lazy_ = 0;
    back_off_ = kBackOff;
  }
}

void SearchWorkers::work(int lane) {
  int spins = 0;
  for (;;) {
    if (stop_.load(std::memory_order_acquire)) return;
    if (run_next(lane)) {
      spins = 0;
      continue;
    }
    const std::uint64_t seen = claim_.load(std::memory_order_acquire);
    if ((seen & kItemMask) < items_.load(std::memory_order_relaxed)) continue;  // opened meanwhile
    // Nothing to claim: spin a little (the next generation is usually
    // microseconds away), then sleep until the claim word changes.
    if (++spins < 2048) {
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
      continue;
    }
    claim_.wait(seen, std::memory_order_acquire);
    spins = 0;
  }
}

}  // namespace vnsim::pollux
