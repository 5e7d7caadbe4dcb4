#pragma once
// For the tests of Gavel's rounds: a test cluster with its view, the jobs,
// and the driver's changes as PolicyDriver gives them.
#include <string>
#include <utility>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim::gavel_testing {

// One test's cluster (a test cluster by name), its topology and view, and
// the inputs of its calls.
struct Rig {
  explicit Rig(const std::string& name)
      : cluster(testing::test_cluster(name)), topology(cluster), view(cluster, topology) {}
  // The input at `now` with these running and queued jobs.
  SchedulerInput at(double now, std::vector<RunningJob> running, std::vector<QueuedJob> queued) {
    SchedulerInput in;
    in.now_s = now;
    in.view = &view;
    in.running = std::move(running);
    in.queued = std::move(queued);
    return in;
  }
  const Cluster cluster;
  const Topology topology;
  ClusterView view;
};

inline JobSpec cifar(const std::string& id, int gpus) {
  JobSpec j;
  j.id = id;
  j.model = "cifar10";
  j.gpus = gpus;
  j.global_batch = 128 * gpus;
  j.iterations = 1000000;
  return j;
}

// The driver's changes, as PolicyDriver gives them: the jobs that changed
// since the last call, found in the call's lists.
class ListedChanges final : public InputChanges {
 public:
  ListedChanges(const SchedulerInput& in, std::vector<JobIndex> jobs) : in_(in), jobs_(std::move(jobs)) {}
  const std::vector<JobIndex>& jobs() const override { return jobs_; }
  const QueuedJob* queued(JobIndex job) const override {
    for (const QueuedJob& q : in_.queued)
      if (q.index == job) return &q;
    return nullptr;
  }
  const RunningJob* running(JobIndex job) const override {
    for (const RunningJob& r : in_.running)
      if (r.index == job) return &r;
    return nullptr;
  }

 private:
  const SchedulerInput& in_;
  std::vector<JobIndex> jobs_;
};

inline std::vector<Decision> decide_changed(GavelPolicy& policy, SchedulerInput in,
                                            std::vector<JobIndex> changed) {
  const ListedChanges changes(in, std::move(changed));
  in.changes = &changes;
  return policy.decide(in);
}

}  // namespace vnsim::gavel_testing
