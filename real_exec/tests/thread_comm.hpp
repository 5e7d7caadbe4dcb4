#pragma once
// An in-process GroupComm: N threads play N ranks, so executor logic is
// tested without MPI. Collectives are two-phase over a shared slot table.
#include <barrier>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "vnsim/real_exec/group_comm.hpp"

namespace vnsim::real_exec::testing {

struct ThreadGroup {
  explicit ThreadGroup(int n) : size(n), sync(n), slots(static_cast<std::size_t>(n)) {}
  int size;
  std::barrier<> sync;
  std::vector<const void*> slots;
};

class ThreadComm final : public GroupComm {
 public:
  ThreadComm(ThreadGroup& g, int rank) : g_(g), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return g_.size; }
  void allreduce_sum(double* data, std::size_t count) override {
    reduce<double>(data, count, [](double a, double b) { return a + b; });
  }
  void allreduce_max(long long* data, std::size_t count) override {
    reduce<long long>(data, count, [](long long a, long long b) { return a > b ? a : b; });
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    g_.slots[static_cast<std::size_t>(rank_)] = data;
    g_.sync.arrive_and_wait();
    if (rank_ != root) std::memcpy(data, g_.slots[static_cast<std::size_t>(root)], bytes);
    g_.sync.arrive_and_wait();
  }

 private:
  template <class T, class Op>
  void reduce(T* data, std::size_t count, Op op) {
    std::vector<T> mine(data, data + count);
    g_.slots[static_cast<std::size_t>(rank_)] = mine.data();
    g_.sync.arrive_and_wait();
    // Rank order, so every rank computes the same bits.
    for (std::size_t i = 0; i < count; ++i) {
      T acc = static_cast<const T*>(g_.slots[0])[i];
      for (int r = 1; r < g_.size; ++r)
        acc = op(acc, static_cast<const T*>(g_.slots[static_cast<std::size_t>(r)])[i]);
      data[i] = acc;
    }
    g_.sync.arrive_and_wait();
  }
  ThreadGroup& g_;
  int rank_;
};

// Runs body(comm) on n threads, one per rank.
inline void run_ranks(int n, const std::function<void(GroupComm&)>& body) {
  ThreadGroup group(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&group, &body, r] {
      ThreadComm comm(group, r);
      body(comm);
    });
  for (auto& t : threads) t.join();
}

}  // namespace vnsim::real_exec::testing
