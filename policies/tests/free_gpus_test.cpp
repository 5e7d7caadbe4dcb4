// FreeGpus keeps only what one decide() call changed on top of the view;
// these tests check it against a plain recount after random starts and
// preemptions, and that consolidated placement with per-node counts gives
// the same GPUs as without them.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <variant>

#include "../src/priority_pass.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/consolidated_placement.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/placement.hpp"

namespace vnsim {
namespace {

// racks x nodes x 4 V100.
ClusterSpec grid_spec(int racks, int nodes_per_rack) {
  ClusterSpec spec;
  spec.name = "grid";
  for (int r = 0; r < racks; ++r) {
    RackSpec rack;
    rack.name = "r" + std::to_string(r);
    for (int n = 0; n < nodes_per_rack; ++n) {
      NodeSpec node;
      node.name = rack.name + "n" + std::to_string(n);
      node.gpu_types.assign(4, "V100");
      node.intra = {IntraLinkKind::NVLink, 150e9, 1e-6};
      node.nic_bandwidth_Bps = 12.5e9;
      node.nic_latency_s = 2e-6;
      rack.nodes.push_back(node);
    }
    spec.racks.push_back(rack);
  }
  return spec;
}

// The free GPUs and the jobs holding GPUs, kept the plain way.
struct Recount {
  std::set<GpuId> free;
  std::map<JobIndex, std::vector<GpuId>> jobs;

  int multi_node_jobs_in_rack(const Cluster& c, RackId r) const {
    int n = 0;
    for (const auto& [job, gpus] : jobs) {
      std::set<NodeId> nodes;
      std::set<RackId> racks;
      for (GpuId g : gpus) {
        nodes.insert(c.gpu(g).node);
        racks.insert(c.gpu(g).rack);
      }
      if (nodes.size() > 1 && racks.count(r) != 0) ++n;
    }
    return n;
  }
};

// Up to `count` GPUs drawn from `pool`, ascending.
std::vector<GpuId> draw(std::mt19937_64& rng, const std::set<GpuId>& pool, int count) {
  std::vector<GpuId> all(pool.begin(), pool.end());
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::min<std::size_t>(all.size(), static_cast<std::size_t>(count)));
  std::sort(all.begin(), all.end());
  return all;
}

void expect_same(const FreeGpus& free, const Recount& want, const Cluster& c, const std::string& where) {
  ASSERT_EQ(free.total(), static_cast<int>(want.free.size())) << where;
  for (GpuId g = 0; g < c.gpu_count(); ++g) ASSERT_EQ(free.is_free(g), want.free.count(g) != 0) << where;
  for (NodeId n = 0; n < c.node_count(); ++n) {
    std::vector<GpuId> on;
    for (GpuId g : want.free)
      if (c.gpu(g).node == n) on.push_back(g);
    ASSERT_EQ(free.on_node(n), on) << where << " node " << n;
    ASSERT_EQ(free.free_on_node(n), static_cast<int>(on.size())) << where << " node " << n;
  }
  for (RackId r = 0; r < c.rack_count(); ++r)
    ASSERT_EQ(free.multi_node_jobs_in_rack(r), want.multi_node_jobs_in_rack(c, r)) << where << " rack " << r;
}

TEST(FreeGpus, CountsEqualARecountAfterRandomStartsAndPreemptions) {
  const Cluster cluster(grid_spec(3, 4));  // 48 GPUs
  const Topology topology(cluster);
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    ClusterView view(cluster, topology);
    std::vector<RunningJob> running;
    Recount want;
    for (GpuId g = 0; g < cluster.gpu_count(); ++g) want.free.insert(g);
    JobIndex next = 0;
    // Jobs the engine runs before the call: 1..9 GPUs anywhere, so some span nodes.
    for (int j = 0; j < 8; ++j) {
      const auto gpus = draw(rng, want.free, 1 + static_cast<int>(rng() % 9));
      if (gpus.empty()) break;
      view.allocate(gpus, next);
      running.push_back(
          RunningJob{next, nullptr, Placement{gpus, std::vector<int>(gpus.size(), 1)}, 0, 0, -1});
      for (GpuId g : gpus) want.free.erase(g);
      want.jobs[next++] = gpus;
    }
    FreeGpus free(view, running);
    // Asking for the rack counts first in some seeds, last in others: the
    // running jobs are counted when first asked.
    if (seed % 2 == 0) (void)free.multi_node_jobs_in_rack(0);
    expect_same(free, want, cluster, "seed " + std::to_string(seed) + " before");
    // The call: preempt some jobs, start others, in random order.
    for (int step = 0; step < 30; ++step) {
      if (rng() % 2 == 0 && !want.jobs.empty()) {
        auto it = want.jobs.begin();
        std::advance(it, static_cast<long>(rng() % want.jobs.size()));
        free.release(it->second);
        for (GpuId g : it->second) want.free.insert(g);
        want.jobs.erase(it);
      } else {
        const auto gpus = draw(rng, want.free, 1 + static_cast<int>(rng() % 9));
        if (gpus.empty()) continue;
        free.take(gpus);
        for (GpuId g : gpus) want.free.erase(g);
        want.jobs[next++] = gpus;
      }
      expect_same(free, want, cluster, "seed " + std::to_string(seed) + " step " + std::to_string(step));
    }
  }
}

TEST(FreeGpus, ACopyChangesIndependently) {
  const Cluster cluster(grid_spec(1, 2));  // GPUs 0..7
  const Topology topology(cluster);
  ClusterView view(cluster, topology);
  std::vector<RunningJob> running;
  view.allocate({0, 1, 4}, 0);
  running.push_back(RunningJob{0, nullptr, Placement{{0, 1, 4}, {1, 1, 1}}, 0, 0, -1});
  FreeGpus free(view, running);
  FreeGpus trial = free;
  trial.release({0, 1, 4});
  EXPECT_EQ(trial.total(), 8);
  EXPECT_EQ(trial.multi_node_jobs_in_rack(0), 0);
  EXPECT_EQ(free.total(), 5);
  EXPECT_FALSE(free.is_free(0));
  EXPECT_EQ(free.free_on_node(0), 2);
  EXPECT_EQ(free.multi_node_jobs_in_rack(0), 1);
}

// Consolidated placement with per-node free counts (the fast path) picks
// the same GPUs as the plain scan of every node's free GPUs.
TEST(FreeGpus, ConsolidatedPlacementWithCountsMatchesThePlainScan) {
  const Cluster cluster(grid_spec(3, 4));  // 48 GPUs
  const Topology topology(cluster);
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    ClusterView view(cluster, topology);
    std::set<GpuId> all;
    for (GpuId g = 0; g < cluster.gpu_count(); ++g) all.insert(g);
    const auto busy = draw(rng, all, static_cast<int>(rng() % 48));
    if (!busy.empty()) view.allocate(busy, 0);
    const int count = 1 + static_cast<int>(rng() % 12);
    const auto gpus_on = [&](NodeId n) { return view.free_gpus_on_node(n); };
    const auto plain = find_consolidated_gpus(cluster, gpus_on, count, kAnyGpuType);
    const auto counted = find_consolidated_gpus(cluster, gpus_on, count, kAnyGpuType,
                                                [&](NodeId n) { return view.free_on_node(n); });
    ASSERT_EQ(plain, counted) << "trial " << trial << " count " << count;
  }
}

// place_chosen as it was: for each chosen job that does not fit the free
// GPUs, a fresh copy of them with every victim not preempted yet given back.
std::vector<Decision> place_chosen_with_fresh_trials(const SchedulerInput& input, const PassChoice& choice,
                                                     PlacementStrategy& placement) {
  std::vector<Decision> out;
  FreeGpus free(*input.view, input.running);
  const bool capped = input.gpu_capacity >= 0;
  int budget = capped ? input.gpu_capacity : std::numeric_limits<int>::max();
  for (const RunningJob& r : input.running)
    if (capped) budget -= static_cast<int>(r.placement.gpus.size());
  const auto try_place = [&](const FreeGpus& gpus, const PassCandidate& c, int left) {
    return c.spec->gpus > left ? std::nullopt : placement.place(gpus, c.spec->gpus, c.allowed);
  };
  std::size_t v = 0;
  for (const PassCandidate& c : choice.chosen_queued) {
    auto got = try_place(free, c, budget);
    if (!got && v < choice.victims.size()) {
      FreeGpus trial = free;
      int trial_budget = budget;
      for (std::size_t w = v; w < choice.victims.size(); ++w) {
        trial.release(choice.victims[w].placement->gpus);
        trial_budget += capped ? static_cast<int>(choice.victims[w].placement->gpus.size()) : 0;
      }
      if (!try_place(trial, c, trial_budget)) continue;
      for (; !got && v < choice.victims.size(); ++v) {
        out.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{choice.victims[v].index});
        free.release(choice.victims[v].placement->gpus);
        budget += capped ? static_cast<int>(choice.victims[v].placement->gpus.size()) : 0;
        got = try_place(free, c, budget);
      }
    }
    if (!got) continue;
    free.take(*got);
    budget -= capped ? static_cast<int>(got->size()) : 0;
    out.emplace_back(std::in_place_type<StartJob>, StartJob{c.index, Placement{*got, {}}});
  }
  return out;
}

std::string written(const std::vector<Decision>& decisions) {
  std::ostringstream out;
  for (const Decision& d : decisions) {
    if (const auto* p = std::get_if<PreemptJob>(&d)) out << "preempt " << p->job << "; ";
    if (const auto* s = std::get_if<StartJob>(&d)) {
      out << "start " << s->job << ":";
      for (GpuId g : s->placement.gpus) out << ' ' << g;
      out << "; ";
    }
  }
  return out.str();
}

// The free GPUs with the victims given back are kept as one set across the
// chosen jobs (a start takes its GPUs from it too): the same preemptions
// and starts, on the same GPUs, as with a fresh copy per job, on random
// states of a 48-GPU cluster, capped (VC quota mode) or not.
TEST(PlaceChosen, TheVictimsSetKeptAcrossJobsDecidesAsFreshCopies) {
  const Cluster cluster(grid_spec(3, 4));  // 48 GPUs
  const Topology topology(cluster);
  std::mt19937_64 rng(5);
  std::vector<JobSpec> specs(64);
  for (JobSpec& spec : specs) spec.gpus = 1 + static_cast<int>(rng() % 12);
  int preempting = 0;
  for (int trial = 0; trial < 400; ++trial) {
    ClusterView view(cluster, topology);
    SchedulerInput input;
    input.view = &view;
    std::set<GpuId> free;
    for (GpuId g = 0; g < cluster.gpu_count(); ++g) free.insert(g);
    PassChoice choice;
    JobIndex next = 0;
    input.running.reserve(16);
    for (int j = 0; j < 12; ++j) {
      const auto gpus = draw(rng, free, specs[next].gpus);
      if (static_cast<int>(gpus.size()) < specs[next].gpus) break;
      view.allocate(gpus, next);
      for (GpuId g : gpus) free.erase(g);
      input.running.push_back(
          RunningJob{next, &specs[next], Placement{gpus, std::vector<int>(gpus.size(), 1)}, 0, 0, -1});
      ++next;
    }
    for (const RunningJob& r : input.running)
      if (rng() % 3 != 0) choice.victims.push_back(PassCandidate{r.index, r.spec, kAnyGpuType, &r.placement});
    std::shuffle(choice.victims.begin(), choice.victims.end(), rng);
    for (int q = 0, n = 1 + static_cast<int>(rng() % 8); q < n; ++q, ++next)
      choice.chosen_queued.push_back(PassCandidate{next, &specs[next], kAnyGpuType, nullptr});
    if (trial % 2 == 1) input.gpu_capacity = cluster.gpu_count() - static_cast<int>(rng() % 16);
    const auto placement = make_placement("consolidated");
    const std::string got = written(place_chosen(input, choice, *placement));
    EXPECT_EQ(got, written(place_chosen_with_fresh_trials(input, choice, *placement))) << "trial " << trial;
    preempting += got.find("preempt") != std::string::npos ? 1 : 0;
  }
  EXPECT_GT(preempting, 100);  // the cases the set is for
}

}  // namespace
}  // namespace vnsim
