#pragma once
// One background thread that runs posted tasks in order. The cuda backend
// tears a job's data plane down on it, so that the worker can open the next
// job's at once, as a real cluster's next job does not wait for the last
// one's processes to exit.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace vnsim::real_exec {

class BackgroundQueue {
 public:
  BackgroundQueue() : thread_([this] { drain(); }) {}
  // Runs every task posted before it returns.
  ~BackgroundQueue() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  BackgroundQueue(const BackgroundQueue&) = delete;
  BackgroundQueue& operator=(const BackgroundQueue&) = delete;

  void post(std::function<void()> task) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
  }

 private:
  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return closing_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // closing, nothing left
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool closing_ = false;
  std::thread thread_;  // last: starts after the members it reads
};

}  // namespace vnsim::real_exec
