// VC quota mode on one node of 8 GPUs split into VC a (4 GPUs) and VC b
// (4 GPUs), with fifo inside each VC. Every expected decision is worked out
// by hand from the rules in docs/POLICIES.md ("Virtual-cluster quotas").
#include "vnsim/policies/vc_quota_policy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

struct Fixture {
  Fixture() : cluster(testing::test_cluster("v100-1x1x8")), topology(cluster), view(cluster, topology) {}

  JobIndex add_job(const std::string& vc, int gpus) {
    auto spec = std::make_unique<JobSpec>();
    spec->id = vc + std::to_string(specs.size());
    spec->vc = vc;
    spec->gpus = gpus;
    specs.push_back(std::move(spec));
    queued.push_back(specs.size() - 1);
    return specs.size() - 1;
  }

  SchedulerInput input(double now_s) const {
    SchedulerInput in;
    in.now_s = now_s;
    in.view = &view;
    for (JobIndex j : queued) in.queued.push_back({j, specs[j].get(), 0, remaining_of(j)});
    for (const RunningJob& r : running) {
      in.running.push_back(r);
      in.running.back().estimated_remaining_s = remaining_of(r.index);
    }
    return in;
  }

  // Applies decisions as the engine does: starts take their GPUs, preempted
  // jobs go back to the queue.
  void apply(const std::vector<Decision>& decisions, double now_s) {
    for (const Decision& d : decisions) {
      if (const auto* s = std::get_if<StartJob>(&d)) {
        view.allocate(s->placement.gpus, s->job);
        std::erase(queued, s->job);
        running.push_back({s->job, specs[s->job].get(), s->placement, now_s});
      } else if (const auto* p = std::get_if<PreemptJob>(&d)) {
        for (auto it = running.begin(); it != running.end(); ++it)
          if (it->index == p->job) {
            view.release(it->placement.gpus, it->index);
            running.erase(it);
            break;
          }
        queued.push_back(p->job);
        std::sort(queued.begin(), queued.end());
      }
    }
  }

  double remaining_of(JobIndex j) const {
    const auto it = remaining_s.find(j);
    return it == remaining_s.end() ? -1 : it->second;
  }

  Cluster cluster;
  Topology topology;
  ClusterView view;
  std::map<JobIndex, double> remaining_s;  // the engine's estimate, when set
  std::vector<std::unique_ptr<JobSpec>> specs;
  std::vector<JobIndex> queued;
  std::vector<RunningJob> running;
};

VcQuotas quotas_4_4() {
  return VcQuotas{{{"a", 4}, {"b", 4}}};
}

std::unique_ptr<Policy> quota_fifo(bool borrowing) {
  return make_vc_quota_policy(
      "fifo", [] { return make_policy("fifo"); }, quotas_4_4(), borrowing);
}

std::vector<JobIndex> started(const std::vector<Decision>& d) {
  std::vector<JobIndex> out;
  for (const Decision& x : d)
    if (const auto* s = std::get_if<StartJob>(&x)) out.push_back(s->job);
  return out;
}

TEST(VcQuotaPolicy, AVcAtItsQuotaQueuesWhileAnotherVcHasFreeGpus) {
  Fixture f;
  auto policy = quota_fifo(false);
  const JobIndex a0 = f.add_job("a", 4);
  const JobIndex a1 = f.add_job("a", 2);
  // fifo alone would start both (6 of 8 GPUs free); VC a holds only 4.
  auto d = policy->decide(f.input(0));
  EXPECT_EQ(started(d), std::vector<JobIndex>{a0});
  f.apply(d, 0);
  d = policy->decide(f.input(10));
  EXPECT_TRUE(started(d).empty()) << "a1 must wait for VC a's own GPUs while 4 of VC b's are free";
  EXPECT_EQ(f.view.free_total(), 4);
  // VC b's job still starts at once on its own quota.
  const JobIndex b2 = f.add_job("b", 3);
  d = policy->decide(f.input(20));
  EXPECT_EQ(started(d), std::vector<JobIndex>{b2});
  f.apply(d, 20);
  // Once a0 ends, a1 runs on VC a's own GPUs.
  f.view.release(f.running[0].placement.gpus, a0);
  f.running.erase(f.running.begin());
  EXPECT_EQ(started(policy->decide(f.input(30))), std::vector<JobIndex>{a1});
  EXPECT_EQ(policy->name(), "fifo+vc-quota");
}

TEST(VcQuotaPolicy, BorrowingLendsIdleQuotaAndTakesItBack) {
  Fixture f;
  auto policy = quota_fifo(true);
  const JobIndex a0 = f.add_job("a", 4);
  const JobIndex a1 = f.add_job("a", 4);
  // VC b is idle: a1 borrows its 4 GPUs.
  auto d = policy->decide(f.input(0));
  EXPECT_EQ(started(d), (std::vector<JobIndex>{a0, a1}));
  f.apply(d, 0);
  EXPECT_EQ(f.view.free_total(), 0);
  // b2 arrives, within VC b's quota: the borrower a1 is preempted and b2
  // starts on the GPUs taken back, in the same decision.
  const JobIndex b2 = f.add_job("b", 2);
  d = policy->decide(f.input(100));
  ASSERT_EQ(d.size(), 2u);
  ASSERT_TRUE(std::holds_alternative<PreemptJob>(d[0]));
  EXPECT_EQ(std::get<PreemptJob>(d[0]).job, a1);
  EXPECT_EQ(started(d), std::vector<JobIndex>{b2});
  f.apply(d, 100);
  // a1 (4 GPUs) cannot borrow again: only 2 GPUs are free and lendable.
  d = policy->decide(f.input(200));
  EXPECT_TRUE(d.empty());
  // Once VC a's own job ends, a1 runs within its quota again.
  f.view.release(f.running[0].placement.gpus, a0);
  f.running.erase(f.running.begin());
  d = policy->decide(f.input(300));
  EXPECT_EQ(started(d), std::vector<JobIndex>{a1});
}

TEST(VcQuotaPolicy, StrictFifoBlocksItsVcAtTheHeadFifoBackfillDoesNot) {
  // VC a holds 2 of its 4 GPUs; a1 (4 GPUs) does not fit the 2 left, a2 (1) would.
  for (const char* name : {"fifo", "fifo-backfill"}) {
    Fixture f;
    auto policy = make_vc_quota_policy(
        name, [name] { return make_policy(name); }, quotas_4_4(), false);
    const JobIndex a0 = f.add_job("a", 2);
    f.apply(policy->decide(f.input(0)), 0);
    f.add_job("a", 4);
    const JobIndex a2 = f.add_job("a", 1);
    const auto d = policy->decide(f.input(10));
    if (std::string(name) == "fifo")
      EXPECT_TRUE(started(d).empty()) << "a2 overtook the head a1 under strict fifo";
    else
      EXPECT_EQ(started(d), std::vector<JobIndex>{a2});
    (void)a0;
  }
}

TEST(VcQuotaPolicy, LendsOnlyGpusNoOwnerNeeds) {
  Fixture f;
  auto policy = quota_fifo(true);
  const JobIndex a0 = f.add_job("a", 4);
  f.apply(policy->decide(f.input(0)), 0);
  // 4 free GPUs, VC b's queued b2 needs 3 of them: a1 (2 GPUs) may not
  // borrow (1 lendable), b2 starts.
  const JobIndex a1 = f.add_job("a", 2);
  const JobIndex b2 = f.add_job("b", 3);
  auto d = policy->decide(f.input(10));
  EXPECT_EQ(started(d), std::vector<JobIndex>{b2});
  (void)a0;
  (void)a1;
}

std::vector<JobIndex> preempted(const std::vector<Decision>& d) {
  std::vector<JobIndex> out;
  for (const Decision& x : d)
    if (const auto* p = std::get_if<PreemptJob>(&x)) out.push_back(p->job);
  return out;
}

// VC a (quota 4) runs a0, a long 4-GPU job; VC b runs b1 on 2 of its 4 GPUs,
// so 2 GPUs are free. a2, a short 4-GPU job of VC a, arrives. A preemptive
// policy preempts a0 (its own VC's lower-priority job) and starts a2 on a0's
// GPUs, as it would on a full 4-GPU cluster; b1 (longer still, and running
// for longer) is never preempted for it, and the 2 free GPUs are not enough.
// Non-preemptive policies leave a2 queued. With borrowing the same holds:
// only VC b's 2 free GPUs are lendable, too few for a2.
TEST(VcQuotaPolicy, APreemptivePolicyPreemptsWithinItsVcsQuota) {
  for (const bool borrowing : {false, true})
    for (const char* name : {"srtf", "tiresias", "fifo", "fifo-backfill", "sjf"}) {
      SCOPED_TRACE(std::string(name) + (borrowing ? " with borrowing" : ""));
      Fixture f;
      auto policy = make_vc_quota_policy(
          name, [name] { return make_policy(name); }, quotas_4_4(), borrowing);
      const JobIndex a0 = f.add_job("a", 4);
      const JobIndex b1 = f.add_job("b", 2);
      f.remaining_s = {{a0, 10000}, {b1, 50000}};
      auto d = policy->decide(f.input(0));
      ASSERT_EQ(started(d), (std::vector<JobIndex>{a0, b1}));
      f.apply(d, 0);
      // An hour later: a0 has 14,400 GPU-s of service (tiresias's lowest
      // queue, past 7,200) and 6,400 s left; a2 has none and 100 s left.
      f.running[0].attained_gpu_s = 4 * 3600.0;
      f.running[1].attained_gpu_s = 2 * 3600.0;
      f.remaining_s[a0] = 10000 - 3600;
      f.remaining_s[b1] = 50000 - 3600;
      const JobIndex a2 = f.add_job("a", 4);
      f.remaining_s[a2] = 100;
      d = policy->decide(f.input(3600));
      const std::string n = name;
      if (n == "srtf" || n == "tiresias") {
        EXPECT_EQ(preempted(d), std::vector<JobIndex>{a0});
        ASSERT_EQ(started(d), std::vector<JobIndex>{a2});
        const auto& gpus = std::get<StartJob>(d.back()).placement.gpus;
        EXPECT_EQ(gpus, f.running[0].placement.gpus) << "a2 must take a0's GPUs, VC a's quota";
        f.apply(d, 3600);
        EXPECT_EQ(f.view.free_total(), 2) << "VC b's 2 free GPUs stay free";
      } else {
        EXPECT_TRUE(d.empty()) << "a non-preemptive policy waits for a0";
      }
    }
}

TEST(VcQuotaPolicy, AJobLargerThanItsQuotaIsRejectedWithoutBorrowing) {
  Fixture f;
  auto policy = quota_fifo(false);
  const JobIndex a0 = f.add_job("a", 6);
  auto d = policy->decide(f.input(0));
  ASSERT_EQ(d.size(), 1u);
  ASSERT_TRUE(std::holds_alternative<RejectJob>(d[0]));
  EXPECT_EQ(std::get<RejectJob>(d[0]).job, a0);
  EXPECT_NE(std::get<RejectJob>(d[0]).reason.find("quota of 4"), std::string::npos);
}

TEST(VcQuotaPolicy, ElasticPoliciesAreRefused) {
  for (const char* name : {"pollux", "optimus", "sia", "vf-wfs", "gavel"}) {
    try {
      make_vc_quota_policy(
          name, [name] { return make_policy(name); }, quotas_4_4(), false);
      ADD_FAILURE() << name << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(VcQuotas, DerivedRuleGivesLargestJobThenGpuTimeShares) {
  // 10 GPUs. VC a: 2x100 + 1x100 GPU-s (300, largest 2); b: 1x500 (500,
  // largest 1); no VC "-": 1x200 (200, largest 1). Left after the largest
  // jobs: 6; shares 1.8, 3.0, 1.2 -> floors 1, 3, 1 and the last GPU to a
  // (remainder 0.8): a = 4, b = 4, - = 2.
  std::vector<JobSpec> jobs(4);
  jobs[0].vc = "a", jobs[0].gpus = 2, jobs[0].trace_duration_s = 100;
  jobs[1].vc = "a", jobs[1].gpus = 1, jobs[1].trace_duration_s = 100;
  jobs[2].vc = "b", jobs[2].gpus = 1, jobs[2].trace_duration_s = 500;
  jobs[3].gpus = 1, jobs[3].trace_duration_s = 200;
  const VcQuotas q = derive_vc_quotas(jobs, 10);
  EXPECT_EQ(q.gpus, (std::map<std::string, int>{{"-", 2}, {"a", 4}, {"b", 4}}));
  EXPECT_NO_THROW(check_vc_quotas(q, jobs, 10));
  EXPECT_THROW(derive_vc_quotas(jobs, 3), InputError);  // largest jobs need 4
}

TEST(VcQuotas, FileIsReadAndBadLinesNameFileAndLine) {
  const auto dir = std::filesystem::temp_directory_path() / ("vnsim-vcq-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const VcQuotas q = read_vc_quotas(write("ok.csv", "# quotas\nvc,gpus\na,4\n\nb , 4\n"));
  EXPECT_EQ(q.gpus, (std::map<std::string, int>{{"a", 4}, {"b", 4}}));
  const std::string bad = write("bad.csv", "vc,gpus\na,4\nb,x\n");
  try {
    read_vc_quotas(bad);
    ADD_FAILURE() << "accepted gpus 'x'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ":3:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_vc_quotas(write("dup.csv", "vc,gpus\na,1\na,2\n")), InputError);
  EXPECT_THROW(read_vc_quotas(write("nohead.csv", "a,1\n")), InputError);
  std::vector<JobSpec> jobs(1);
  jobs[0].vc = "c";
  EXPECT_THROW(check_vc_quotas(q, jobs, 8), InputError);  // VC c has no quota
  EXPECT_THROW(check_vc_quotas(q, {}, 7), InputError);    // 8 > 7 GPUs
  std::filesystem::remove_all(dir);
}

// What a run writes as vc_quotas.csv reads back as the same quotas, and
// --vc-quotas SOURCE derives ("trace") or reads them, checked either way.
TEST(VcQuotas, TheirCsvReadsBackAndASourceIsDerivedOrRead) {
  std::vector<JobSpec> jobs(2);
  jobs[0].vc = "a", jobs[0].gpus = 2, jobs[0].trace_duration_s = 100;
  jobs[1].vc = "b", jobs[1].gpus = 1, jobs[1].trace_duration_s = 100;
  const VcQuotas derived = vc_quotas_from_source("trace", jobs, 6);
  EXPECT_EQ(derived.gpus, derive_vc_quotas(jobs, 6).gpus);
  const std::string csv = vc_quotas_csv(derived);
  EXPECT_EQ(csv.substr(0, 8), "vc,gpus\n");
  const auto path = std::filesystem::temp_directory_path() / ("vnsim-vcq-csv-" + std::to_string(::getpid()));
  std::ofstream(path) << csv;
  EXPECT_EQ(vc_quotas_from_source(path.string(), jobs, 6).gpus, derived.gpus);
  EXPECT_THROW(vc_quotas_from_source(path.string(), jobs, 5), InputError);  // 6 quota GPUs > 5
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace vnsim
