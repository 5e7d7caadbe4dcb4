#include "vnsim/policies/fifo_policy.hpp"

#include <map>
#include <memory>
#include <optional>

#include "vnsim/core/consolidated_placement.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {

namespace {

// find_consolidated_gpus fails only when fewer than `count` allowed GPUs are
// free, and free GPUs only shrink during one decide() call. So once a job of
// size c with allowed types T fails, every later job of size >= c whose
// allowed types are a subset of T fails too; remembering that keeps backfill
// over a long queue from re-running placement for jobs that cannot fit.
class FailureMemo {
 public:
  bool known_to_fail(int gpus, GpuTypeMask allowed) const {
    for (const auto& [mask, smallest] : smallest_failed_)
      if ((allowed & ~mask) == 0 && gpus >= smallest) return true;
    return false;
  }
  void record(int gpus, GpuTypeMask allowed) {
    auto [it, inserted] = smallest_failed_.emplace(allowed, gpus);
    if (!inserted && gpus < it->second) it->second = gpus;
  }

 private:
  std::map<GpuTypeMask, int> smallest_failed_;
};

// Clears the GPUs marked as taken when decide() returns, even by exception,
// so the next call starts from an all-false vector without an O(GPUs) reset.
class TakenGuard {
 public:
  explicit TakenGuard(std::vector<char>& taken) : taken_(taken) {}
  TakenGuard(const TakenGuard&) = delete;
  TakenGuard& operator=(const TakenGuard&) = delete;
  ~TakenGuard() {
    for (GpuId g : marked_) taken_[g] = 0;
  }
  void mark(const std::vector<GpuId>& gpus) {
    for (GpuId g : gpus) {
      taken_[g] = 1;
      marked_.push_back(g);
    }
  }

 private:
  std::vector<char>& taken_;
  std::vector<GpuId> marked_;
};

}  // namespace

std::vector<Decision> FifoPolicy::decide(const SchedulerInput& input) {
  std::vector<Decision> decisions;
  if (input.view == nullptr || input.queued.empty()) return decisions;
  const ClusterView& view = *input.view;
  const Cluster& cluster = view.cluster();
  if (taken_.size() != static_cast<std::size_t>(cluster.gpu_count())) taken_.assign(cluster.gpu_count(), 0);

  TakenGuard guard(taken_);
  FailureMemo failures;
  int free_left = view.free_total();
  const auto free_gpus_on_node = [&](NodeId n) {
    std::vector<GpuId> gpus = view.free_gpus_on_node(n);
    if (free_left < view.free_total()) std::erase_if(gpus, [&](GpuId g) { return taken_[g] != 0; });
    return gpus;
  };

  for (const QueuedJob& queued : input.queued) {
    if (free_left == 0) break;
    const JobSpec& job = *queued.spec;
    const GpuTypeMask allowed = queued.allowed_types & cluster.type_mask(job.gpu_type);
    std::optional<std::vector<GpuId>> gpus;
    if (job.gpus <= free_left && !failures.known_to_fail(job.gpus, allowed))
      gpus = find_consolidated_gpus(cluster, free_gpus_on_node, job.gpus, allowed,
                                    [&](NodeId n) { return view.free_on_node(n); });
    if (!gpus) {
      if (!backfill_) break;
      failures.record(job.gpus, allowed);
      continue;
    }
    guard.mark(*gpus);
    free_left -= static_cast<int>(gpus->size());
    decisions.push_back(
        StartJob{queued.index, spread_virtual_nodes(std::move(*gpus), job.effective_virtual_nodes())});
  }
  return decisions;
}

namespace {
const PolicyRegistration kFifo("fifo", 10, ParamTable<NoParams>(),
                               [](const NoParams&) { return std::make_unique<FifoPolicy>(false); });
const PolicyRegistration kFifoBackfill("fifo-backfill", 20, ParamTable<NoParams>(),
                                       [](const NoParams&) { return std::make_unique<FifoPolicy>(true); });
}  // namespace

}  // namespace vnsim
