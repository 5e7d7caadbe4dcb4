// Gavel between rounds: GPUs freed by completions go, without preemption,
// to the highest-priority queued jobs that fit (gavel_policy.hpp).
#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>

#include "gavel_picks.hpp"
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {

using gavel_detail::Pick;
using gavel_detail::take_in_order;

namespace {

// GPUs of each type free in the view, from the view's whole-GPU counts (the
// cluster's, or per node where a node has one type), not a look at every
// GPU: fill() runs at every arrival and completion, and a per-GPU scan
// grows with the cluster.
std::vector<int> free_per_type(const ClusterView& view) {
  const Cluster& cluster = view.cluster();
  std::vector<int> free_of_type(cluster.gpu_types().size(), 0);
  if (free_of_type.size() == 1) {
    free_of_type[0] = view.free_total();
    return free_of_type;
  }
  for (const NodeInfo& n : cluster.nodes()) {
    const int free = view.free_on_node(n.id);
    if (free == 0) continue;
    const GpuTypeMask mask = cluster.node_type_mask(n.id);
    if (std::has_single_bit(mask)) {
      free_of_type[static_cast<std::size_t>(std::countr_zero(mask))] += free;
      continue;
    }
    for (GpuId g = n.first_gpu; g < n.first_gpu + static_cast<GpuId>(n.gpu_count); ++g)
      if (view.is_free(g))
        ++free_of_type[static_cast<std::size_t>(std::countr_zero(cluster.gpu_type_bit(g)))];
  }
  return free_of_type;
}

}  // namespace

std::vector<Decision> GavelPolicy::fill(const SchedulerInput& input) {
  ranked_ = 0;
  const Cluster& cluster = input.view->cluster();
  const int types = static_cast<int>(cluster.gpu_types().size());
  std::vector<int> free_of_type = free_per_type(*input.view);
  if (std::accumulate(free_of_type.begin(), free_of_type.end(), 0) == 0) return {};
  const int most_free = *std::max_element(free_of_type.begin(), free_of_type.end());

  // Free GPUs only shrink below, so a pick wider than its type's free GPUs
  // now would be passed over: only the queued jobs that fit are candidates,
  // reached in order of width (on a long queue, nearly every job between
  // rounds is too wide), and no running job is looked at.
  std::vector<Active> candidates;
  for (const auto& [gpus, job] : queued_by_gpus_) {
    if (gpus > most_free) break;
    JobMemo& m = memos_[job];
    bool fits = m.planned_type >= 0 && gpus <= free_of_type[static_cast<std::size_t>(m.planned_type)];
    for (int j = 0; j < types && !fits; ++j) fits = m.row[j] > 0 && gpus <= free_of_type[j];
    if (fits) candidates.push_back(Active{job, m.spec, nullptr, m.row});
  }
  if (candidates.empty()) return {};

  // Each type's total over every active job, from the running sums, read
  // by priorities() only for a candidate with an allocation on a type it
  // can use (one queued again since the last solve); else zeros, which give
  // the same priorities, 0, without summing again what a kept round left.
  bool reads_totals = false;
  for (const Active& a : candidates) {
    const std::vector<double>& x = memos_[a.index].x;
    for (std::size_t j = 0; j < x.size() && j < a.throughput.size() && !reads_totals; ++j)
      reads_totals = x[j] > 0 && a.throughput[j] > 0;
  }
  const std::vector<double> type_time =
      reads_totals ? type_time_now(input.now_s) : std::vector<double>(static_cast<std::size_t>(types), 0.0);
  std::vector<JobIndex> index_of;
  index_of.reserve(candidates.size());
  std::vector<Pick> picks;
  std::vector<double> prio;
  int narrowest = std::numeric_limits<int>::max();  // of the queued jobs ranked
  for (std::size_t pos = 0; pos < candidates.size(); ++pos) {
    const Active& a = candidates[pos];
    index_of.push_back(a.index);
    const int gpus = a.spec->gpus;
    const JobMemo& m = memos_[a.index];
    narrowest = std::min(narrowest, gpus);
    priorities(a, type_time, prio);
    const double x_total = std::accumulate(m.x.begin(), m.x.end(), 0.0);
    // Jobs without an allocation yet (arrived since the last round) come
    // after, in submission order, on any type they can use.
    for (int j = 0; j < types; ++j)
      if (a.throughput[j] > 0 && gpus <= free_of_type[j])
        picks.push_back(Pick{prio[j], x_total, pos, j, a.throughput[j], gpus});
    if (m.planned_type >= 0 && gpus <= free_of_type[static_cast<std::size_t>(m.planned_type)])
      picks.push_back(Pick{std::numeric_limits<double>::infinity(), x_total, pos, m.planned_type,
                           a.throughput[static_cast<std::size_t>(m.planned_type)], gpus});
  }
  if (picks.empty()) return {};

  std::vector<Decision> out;
  std::vector<char> started(candidates.size(), 0);
  FreeGpus free(*input.view, input.running);
  ranked_ = take_in_order(picks, index_of, free_of_type, [&](const Pick& p) {
    const Active& a = candidates[p.pos];
    if (started[p.pos] != 0 || free_of_type[p.type] < a.spec->gpus) return true;
    if (auto placement = place(free, a, p.type)) {
      started[p.pos] = 1;
      free_of_type[p.type] -= a.spec->gpus;
      out.emplace_back(std::in_place_type<StartJob>, StartJob{a.index, std::move(*placement)});
    }
    return *std::max_element(free_of_type.begin(), free_of_type.end()) >= narrowest;
  });
  return out;
}

}  // namespace vnsim
