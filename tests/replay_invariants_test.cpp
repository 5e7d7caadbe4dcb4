// End-to-end replay with invariants: every submitted job ends completed or
// rejected with a reason, and no GPU is ever over-committed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "shared_data.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/sim/allocation_check.hpp"
#include "vnsim/sim/replay.hpp"
#include "vnsim/traces/readers.hpp"
#include "vnsim/traces/synthetic_philly.hpp"
#include "vnsim/traces/work_assignment.hpp"

namespace vnsim {
namespace {

// No GPU's summed share above kGpuMilli at any instant (with whole-GPU jobs:
// no GPU held by two jobs), checked on the whole allocation log.
void expect_no_overcommit(const ReplayResult& r, int gpu_count) {
  EXPECT_EQ(first_allocation_error(r.allocations, gpu_count), "");
}

void expect_accounted(const std::vector<JobSpec>& jobs, const ReplayResult& r) {
  ASSERT_EQ(r.jobs.size(), jobs.size());
  std::size_t completed = 0, rejected = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobRecord& rec = r.jobs[i];
    EXPECT_EQ(rec.id, jobs[i].id);
    if (rec.state == FinalState::Completed) {
      ++completed;
      EXPECT_GE(rec.start_s, rec.submit_s - 1e-9) << rec.id;
      EXPECT_GT(rec.finish_s, rec.start_s) << rec.id;
      EXPECT_EQ(static_cast<int>(rec.gpus.size()), jobs[i].gpus) << rec.id;
      EXPECT_TRUE(rec.reason.empty()) << rec.id;
    } else {
      ++rejected;
      EXPECT_FALSE(rec.reason.empty()) << "job " << rec.id << " rejected without a reason";
    }
  }
  EXPECT_EQ(completed + rejected, jobs.size());
}

TEST(ReplayInvariants, SyntheticPhillyOnTestbedWithImpossibleJobs) {
  Cluster cluster(load_cluster_spec("testbed"));
  std::vector<JobSpec> jobs = generate_philly_like(400, 40.0, 7);
  // Jobs that can never run must come back rejected, each with its reason.
  JobSpec too_big = jobs.front();
  too_big.id = "too-big";
  too_big.gpus = cluster.gpu_count() + 1;
  too_big.virtual_nodes = too_big.gpus;
  JobSpec wrong_type = jobs.front();
  wrong_type.id = "wrong-type";
  wrong_type.gpu_type = "H100";
  jobs.push_back(too_big);
  jobs.push_back(wrong_type);
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });

  auto policy = make_policy("fifo");
  ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, *policy, ReplayOptions{});
  expect_accounted(jobs, r);
  expect_no_overcommit(r, cluster.gpu_count());
  std::map<std::string, const JobRecord*> by_id;
  for (const auto& rec : r.jobs) by_id[rec.id] = &rec;
  EXPECT_EQ(by_id.at("too-big")->state, FinalState::Rejected);
  EXPECT_NE(by_id.at("too-big")->reason.find("GPUs"), std::string::npos) << by_id.at("too-big")->reason;
  EXPECT_EQ(by_id.at("wrong-type")->state, FinalState::Rejected);
  EXPECT_NE(by_id.at("wrong-type")->reason.find("H100"), std::string::npos) << by_id.at("wrong-type")->reason;
}

TEST(ReplayInvariants, PhillySample2kOnPhilly2017) {
  VNSIM_REQUIRE_SHARED(shared);
  Cluster cluster(load_cluster_spec("philly-2017"));
  TraceReadResult t = read_trace(shared + "/traces/philly_2017_pollux_sample_2k.csv", "", BadRowPolicy::Fail);
  assign_work(t.jobs, cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), 1);
  ASSERT_EQ(t.jobs.size(), 2000u);
  auto policy = make_policy("fifo");
  ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), t.jobs, *policy, ReplayOptions{});
  expect_accounted(t.jobs, r);
  expect_no_overcommit(r, cluster.gpu_count());
  // Every job of this sample fits the cluster, so all must complete.
  for (const auto& rec : r.jobs) EXPECT_EQ(rec.state, FinalState::Completed) << rec.id << ": " << rec.reason;
}

// GPU sharing on: the Alibaba 2023 openb pods (618 of 1581 ask for part of a
// GPU) on the 16-GPU testbed, 1000x denser arrivals so that Gandiva packs.
// The invariants become "no GPU's summed share above 1000 milli".
TEST(ReplayInvariants, OpenbPodsWithGandivaPackingOnTestbed) {
  VNSIM_REQUIRE_SHARED(shared);
  Cluster cluster(load_cluster_spec("testbed"));
  TraceReadResult t =
      read_trace(shared + "/traces/alibaba_gpu_2023_openb_sample_2k.csv", "", BadRowPolicy::Skip);
  for (JobSpec& j : t.jobs) {
    j.submit_s /= 1000;
    j.trace_duration_s = std::min(j.trace_duration_s, 3600.0);  // keeps the run short
  }
  assign_work(t.jobs, cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), 1);
  std::stable_sort(t.jobs.begin(), t.jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  auto policy = make_policy("gandiva", {{"packing", "on"}});
  ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), t.jobs, *policy, ReplayOptions{});
  expect_accounted(t.jobs, r);
  expect_no_overcommit(r, cluster.gpu_count());
  std::size_t shared_takes = 0;
  for (const auto& e : r.allocations) shared_takes += e.taken && e.milli < kGpuMilli ? 1 : 0;
  EXPECT_GT(shared_takes, 0u) << "nothing was shared: the test checks nothing new";
}

}  // namespace
}  // namespace vnsim
