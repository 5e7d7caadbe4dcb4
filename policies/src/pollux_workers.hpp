#pragma once
// A persistent pool of threads for Pollux's genetic search: a generation's
// children are items 0..n-1, handed out one at a time to whichever lane is
// free (lane 0 is the caller, lanes 1.. the pool's threads). The caller
// publishes items as their inputs become ready (their random draws are
// taken on the caller's thread, in the single-thread order), so the other
// lanes start on the first children while the caller draws the rest. No
// thread is started per generation: a search runs millions of them, and
// the threads wait on an atomic (a futex on Linux) between generations.
// The tasks must not call into the simulator. Private to policies/.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace vnsim::pollux {

class SearchWorkers {
 public:
  // Runs item `item` on lane `lane` (0 <= lane < lanes()).
  using Task = void (*)(void* context, std::size_t item, int lane);

  // `lanes` - 1 threads (none for 1); without `back_off`, worth_it() is
  // always true (tests that must run every epoch on the lanes).
  explicit SearchWorkers(int lanes, bool back_off = true);
  ~SearchWorkers();
  SearchWorkers(const SearchWorkers&) = delete;
  SearchWorkers& operator=(const SearchWorkers&) = delete;

  int lanes() const { return static_cast<int>(threads_.size()) + 1; }

  // Opens `items` items (fewer than 2^32) of `task`; none may start before
  // publish() says so. Call only after the last finish() returned.
  void begin(std::size_t items, Task task, void* context);
  // Items [0, ready) may start (ready never falls within one begin()).
  void publish(std::size_t ready) { ready_.store(ready, std::memory_order_release); }
  // After publishing every item: runs the items no thread took on lane 0,
  // and returns when every item has finished.
  void finish();

  // Whether the next epoch should run on the lanes: false while backing
  // off. The other lanes earn their keep only where they get a core; where
  // they do not (other processes keep every core busy), the caller ran
  // nearly every item itself after drawing them all, and waited for the
  // few they took. After kLazyInARow epochs in a row in which the other
  // lanes ran under a fifth of the items, the next kBackOff epochs run on
  // the caller alone (the caller's one-lane path; the same results).
  bool worth_it() {
    if (back_off_ == 0) return true;
    --back_off_;
    return false;
  }

  static constexpr int kLazyInARow = 3;
  static constexpr int kBackOff = 64;

 private:
  static constexpr std::uint64_t kItemMask = 0xffffffffULL;
  // Claims and runs one item of the epoch `claim` shows; false when none is
  // left to claim there.
  bool run_next(int lane);
  void work(int lane);

  // Each word the lanes write on a cache line of its own, apart from the
  // words they only read within an epoch: a claim, a publish or a finished
  // item then moves one line between cores, not the others with it (the
  // hand-off is paid once per child, and small searches' children take
  // well under a microsecond).
  // (epoch << 32) | next unclaimed item: a claim is a compare-exchange, so
  // a thread that wakes after its epoch ended claims nothing of the next.
  alignas(64) std::atomic<std::uint64_t> claim_{kItemMask};
  alignas(64) std::atomic<std::size_t> ready_{0};
  alignas(64) std::atomic<std::size_t> done_{0};  // items of this epoch run on lanes 1..
  alignas(64) std::atomic<std::size_t> items_{0};
  std::atomic<Task> task_{nullptr};
  std::atomic<void*> context_{nullptr};
  std::atomic<bool> stop_{false};
  alignas(64) std::size_t own_ = 0;  // items of this epoch run on lane 0 (the caller's only)
  std::uint64_t epoch_ = 0;
  bool may_back_off_;
  int lazy_ = 0;      // epochs in a row in which the other lanes ran under a fifth
  int back_off_ = 0;  // epochs left to run on the caller alone
  std::vector<std::thread> threads_;
};

}  // namespace vnsim::pollux
