// Optimus rounds in which nothing changed are not computed again (issue 21:
// a round with nothing changed since the last one costs near zero). Counted
// with OptimusPolicy::full_rounds, not timed.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/optimus_policy.hpp"

namespace vnsim {
namespace {

// One node of 4 T4 on PCIe.
ClusterSpec one_t4_node() {
  ClusterSpec spec;
  spec.name = "t4";
  RackSpec rack;
  rack.name = "r0";
  NodeSpec node;
  node.name = "n0";
  node.gpu_types.assign(4, "T4");
  node.intra = {IntraLinkKind::PCIe, 15.75e9, 1e-6};
  node.nic_bandwidth_Bps = 6.25e9;
  node.nic_latency_s = 1e-6;
  rack.nodes.push_back(node);
  spec.racks.push_back(rack);
  return spec;
}

std::vector<JobSpec> cifar_jobs(int count) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < count; ++i) {
    JobSpec j;
    j.id = "j" + std::to_string(i);
    j.model = "cifar10";
    j.gpus = 1;
    j.global_batch = 128;
    j.iterations = 100000;
    j.submit_s = i;
    jobs.push_back(j);
  }
  return jobs;
}

// The jobs of `jobs` in the policy's hands, with the engine's part played
// here: starts take their GPUs at once.
struct Engine {
  explicit Engine(const std::vector<JobSpec>& specs)
      : jobs(specs), cluster(one_t4_node()), topology(cluster), view(cluster, topology) {}
  SchedulerInput input(double now) {
    SchedulerInput in;
    in.now_s = now;
    in.view = &view;
    for (JobIndex i = 0; i < arrived; ++i)
      if (!is_running(i) && i != done) in.queued.push_back(QueuedJob{i, &jobs[i], 0, -1});
    in.running = running;
    return in;
  }
  bool is_running(JobIndex i) const {
    for (const RunningJob& r : running)
      if (r.index == i) return true;
    return false;
  }
  void apply(const std::vector<Decision>& ds, double now) {
    for (const Decision& d : ds) {
      if (const auto* s = std::get_if<StartJob>(&d)) {
        view.allocate(s->placement.gpus, s->job);
        running.push_back(RunningJob{s->job, &jobs[s->job], s->placement, now, 0, -1});
      }
      for (auto it = running.begin(); it != running.end(); ++it) {
        if (const auto* r = std::get_if<ResizeJob>(&d); r != nullptr && r->job == it->index) {
          view.release(it->placement.gpus, it->index);
          view.allocate(r->placement.gpus, it->index);
          it->placement = r->placement;
          break;
        }
        if (const auto* x = std::get_if<PreemptJob>(&d); x != nullptr && x->job == it->index) {
          view.release(it->placement.gpus, it->index);
          running.erase(it);
          break;
        }
      }
    }
  }
  std::vector<Decision> round(OptimusPolicy& p, double now) {
    std::vector<Decision> ds = p.decide(input(now));
    apply(ds, now);
    return ds;
  }
  const std::vector<JobSpec>& jobs;
  Cluster cluster;
  Topology topology;
  ClusterView view;
  std::vector<RunningJob> running;
  JobIndex arrived = 0;
  JobIndex done = 1000;  // a job that completed, none when past the jobs
};

TEST(OptimusRounds, ARoundWithNothingChangedIsNotComputedAgain) {
  // Six one-GPU jobs on 4 GPUs: each of the first four gets one GPU in
  // arrival order and none is left, so the remaining iterations decide
  // nothing and the same jobs keep the same GPUs until something changes.
  const std::vector<JobSpec> jobs = cifar_jobs(7);
  Engine e(jobs);
  OptimusPolicy p;
  e.arrived = 6;
  EXPECT_EQ(e.round(p, 0).size(), 4u);  // four starts
  EXPECT_EQ(p.full_rounds(), 1u);
  EXPECT_TRUE(e.round(p, 60).empty());  // computed: the jobs now run
  EXPECT_EQ(p.full_rounds(), 2u);
  for (double t = 120; t <= 600; t += 60) EXPECT_TRUE(e.round(p, t).empty()) << t;
  EXPECT_EQ(p.full_rounds(), 2u);  // nothing changed: none computed
  EXPECT_EQ(p.next_timer_s(600), 660);
  // An arrival changes the queue: the next round is computed again.
  e.arrived = 7;
  EXPECT_TRUE(e.round(p, 660).empty());
  EXPECT_EQ(p.full_rounds(), 3u);
  EXPECT_TRUE(e.round(p, 720).empty());
  EXPECT_EQ(p.full_rounds(), 3u);
  // A job that ends changes the running jobs: the fifth job starts.
  e.done = e.running.front().index;
  e.view.release(e.running.front().placement.gpus, e.done);
  e.running.erase(e.running.begin());
  const std::vector<Decision> after_end = e.round(p, 780);
  EXPECT_EQ(p.full_rounds(), 4u);
  ASSERT_EQ(after_end.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(after_end[0]).job, 4u);
}

TEST(OptimusRounds, ARoundWithGpusToShareIsComputedEveryTime) {
  // Two jobs on 4 GPUs: the greedy gives the GPUs left by remaining
  // iterations, which change as the jobs run, so every round is computed.
  const std::vector<JobSpec> jobs = cifar_jobs(2);
  Engine e(jobs);
  OptimusPolicy p;
  e.arrived = 2;
  e.round(p, 0);
  for (double t = 60; t <= 300; t += 60) e.round(p, t);
  EXPECT_EQ(p.full_rounds(), 6u);
}

}  // namespace
}  // namespace vnsim
