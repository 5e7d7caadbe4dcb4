#pragma once
// Goodput-policy test fixtures: a job on one GPU, a one-line rendering of a
// round's decisions, and a world of T4 nodes (the Pollux testbed GPU, so the
// catalog's step times apply unscaled) with inputs built on it.
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim::testing {

inline JobSpec job(const std::string& id, const std::string& model, int batch, long long iterations,
                   double submit = 0) {
  JobSpec j;
  j.id = id;
  j.model = model;
  j.gpus = 1;
  j.global_batch = batch;
  j.iterations = iterations;
  j.submit_s = submit;
  return j;
}

inline std::string describe(const std::vector<Decision>& ds) {
  std::ostringstream out;
  for (const Decision& d : ds)
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          out << x.job;
          if constexpr (std::is_same_v<T, StartJob> || std::is_same_v<T, ResizeJob>) {
            out << (std::is_same_v<T, StartJob> ? " start" : " resize");
            for (std::size_t i = 0; i < x.placement.gpus.size(); ++i)
              out << " " << x.placement.gpus[i] << "x" << x.placement.vn_per_gpu[i];
            if constexpr (std::is_same_v<T, ResizeJob>) out << " batch " << x.global_batch;
          } else {
            out << " other";
          }
          out << ";";
        },
        d);
  return out.str();
}

struct World {
  // `nodes` nodes x 4 T4 on PCIe, 50 Gbit/s NICs (tests/clusters/pcie-t4-1x<nodes>x4.json).
  explicit World(int nodes) : World(testing::test_cluster("pcie-t4-1x" + std::to_string(nodes) + "x4")) {}
  explicit World(const ClusterSpec& spec) : cluster(spec), topology(cluster), view(cluster, topology) {}
  SchedulerInput input(double now, const std::vector<JobSpec>& jobs) {
    SchedulerInput in;
    in.now_s = now;
    in.view = &view;
    for (std::size_t i = 0; i < jobs.size(); ++i) in.queued.push_back(QueuedJob{i, &jobs[i], 0, -1});
    return in;
  }
  // A later round in which job 0 runs where `start` put it (since t = 0).
  SchedulerInput running_job_0(double now, const std::vector<JobSpec>& jobs, const StartJob& start) {
    SchedulerInput in;
    in.now_s = now;
    in.view = &view;
    view.allocate(start.placement.gpus, 0);
    const double attained = now * static_cast<double>(start.placement.gpus.size());
    in.running.push_back(RunningJob{0, &jobs[0], start.placement, 0, attained, -1});
    return in;
  }
  Cluster cluster;
  Topology topology;
  ClusterView view;
};

}  // namespace vnsim::testing
