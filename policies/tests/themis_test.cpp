// Themis: rho, the fairness knob and leases on one 4-GPU node, by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <variant>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/themis_policy.hpp"

namespace vnsim {
namespace {

JobSpec job(const char* id, int gpus, double submit) {
  JobSpec j;
  j.id = id;
  j.gpus = gpus;
  j.submit_s = submit;
  return j;
}

struct World {
  World() : cluster(testing::test_cluster("v100-1x1x4")), topology(cluster), view(cluster, topology) {}
  SchedulerInput input(double now) const {
    SchedulerInput in;
    in.now_s = now;
    in.view = &view;
    return in;
  }
  Cluster cluster;
  Topology topology;
  ClusterView view;
};

// 8 GPUs shared by 4 jobs: fair share 2 GPUs, so a 4-GPU job that runs 200 s
// alone takes 200 x 4 / 2 = 400 s on its share; 100 s elapsed + 300 s left
// gives rho = 1. With no contention the share is the whole demand.
TEST(Themis, RhoIsSharedOverFairShareTime) {
  EXPECT_DOUBLE_EQ(ThemisPolicy::rho(100, 300, 200, 4, 8, 4), 1.0);
  EXPECT_DOUBLE_EQ(ThemisPolicy::rho(100, 300, 200, 4, 8, 1), 2.0);
  EXPECT_DOUBLE_EQ(ThemisPolicy::rho(0, 50, -1, 4, 8, 1), 1.0) << "unknown alone time is neutral";
}

// Three queued 2-GPU jobs on 4 GPUs at t = 1000, contention 3: fair share
// 4/3 GPUs, T_alone = 1.5 x alone time.
//   j0: submitted 0,   alone 1000: rho = (1000 + 1000) / 1500 = 1.33, gain
//       log(1 + 600/2000) / 2 = 0.13
//   j1: submitted 950, alone 100:  rho = (50 + 100) / 150 = 1.0,   gain
//       log(1 + 600/150) / 2 = 0.80
//   j2: submitted 500, alone 400:  rho = (500 + 400) / 600 = 1.5,  gain
//       log(1 + 600/900) / 2 = 0.26
// f = 0.5: the first ceil(1.5) = 2 worst-rho jobs (j2, j0) get the 4 GPUs.
// f = 0: all compete, by gain per GPU: j1 then j2.
struct KnobScenario {
  KnobScenario() : j0(job("j0", 2, 0)), j1(job("j1", 2, 950)), j2(job("j2", 2, 500)) {}
  std::vector<Decision> decide(double knob) {
    ThemisParams params;
    params.fairness_knob = knob;
    ThemisPolicy policy(params);
    SchedulerInput in = world.input(1000);
    in.queued = {QueuedJob{0, &j0, 0, 1000}, QueuedJob{1, &j1, 0, 100}, QueuedJob{2, &j2, 0, 400}};
    return policy.decide(in);
  }
  World world;
  JobSpec j0, j1, j2;
};

TEST(Themis, FairnessKnobOffersGpusToTheWorstRhoFirst) {
  KnobScenario s;
  const auto out = s.decide(0.5);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::get<StartJob>(out[0]).job, 2u);
  EXPECT_EQ(std::get<StartJob>(out[1]).job, 0u);
}

TEST(Themis, KnobZeroLetsEveryJobCompeteOnGain) {
  KnobScenario s;
  const auto out = s.decide(0);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::get<StartJob>(out[0]).job, 1u);
  EXPECT_EQ(std::get<StartJob>(out[1]).job, 2u);
}

// a (4 GPUs, alone 1000 s) starts at t = 0 with a 600 s lease. b (4 GPUs,
// alone 1000 s) arrives at t = 100: a keeps its GPUs until the lease ends.
// At t = 600, contention 2, fair share 2 GPUs, T_alone = 2000 s:
//   a: (600 + 400) / 2000 = 0.5;  b: (500 + 1000) / 2000 = 0.75,
// so b is worse off: a is preempted and b starts, leased until 1200.
TEST(Themis, LeaseProtectsARunningJobUntilItEnds) {
  World w;
  const JobSpec a = job("a", 4, 0), b = job("b", 4, 100);
  ThemisPolicy policy;  // f = 0.8, lease 600 s
  SchedulerInput in0 = w.input(0);
  in0.queued = {QueuedJob{0, &a, 0, 1000}};
  const auto out0 = policy.decide(in0);
  ASSERT_EQ(out0.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out0[0]).job, 0u);
  EXPECT_FALSE(policy.next_timer_s(0).has_value()) << "nobody waits for the lease";
  w.view.allocate({0, 1, 2, 3}, 0);

  SchedulerInput in1 = w.input(100);
  in1.running = {RunningJob{0, &a, Placement{{0, 1, 2, 3}, {1, 1, 1, 1}}, 0, 400, 900}};
  in1.queued = {QueuedJob{1, &b, 0, 1000}};
  EXPECT_TRUE(policy.decide(in1).empty());
  ASSERT_TRUE(policy.next_timer_s(100).has_value());
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(100), 600);

  SchedulerInput in2 = w.input(600);
  in2.running = {RunningJob{0, &a, Placement{{0, 1, 2, 3}, {1, 1, 1, 1}}, 0, 2400, 400}};
  in2.queued = {QueuedJob{1, &b, 0, 1000}};
  const auto out2 = policy.decide(in2);
  ASSERT_EQ(out2.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out2[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out2[1]).job, 1u);
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(600), 1200);
}

// 40 one-GPU jobs queued for 4 GPUs, the same estimate (1000 s): the earlier
// submitted, the longer waited, the worse rho. The first round is the
// ceil(0.2 x 40) = 8 worst (jobs 0..7); among them the gain per GPU,
// log(1 + 600 / (elapsed + 1000)), is largest for the shortest wait, so
// 7, 6, 5, 4 start. The auction orders only the 4 bids the 4 GPUs can take,
// not the 40 (a counter, not a timer). rho is evaluated once per bid (40)
// and, after one more lease, only for the 8 of the first round: 48, not 80.
TEST(Themis, AuctionOrdersOnlyTheBidsTheFreeGpusCanTake) {
  World w;
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 40; ++i) jobs.push_back(job("j", 1, i));
  ThemisPolicy policy;
  SchedulerInput in = w.input(100);
  for (std::size_t i = 0; i < jobs.size(); ++i) in.queued.push_back(QueuedJob{i, &jobs[i], 0, 1000});
  const auto out = policy.decide(in);
  ASSERT_EQ(out.size(), 4u);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(std::get<StartJob>(out[i]).job, 7 - i);
  EXPECT_EQ(policy.ranked_bids(), 4u);
  EXPECT_EQ(policy.rho_evaluations(), 48u);
}

// Two 1-GPU jobs fit the 4 GPUs; twenty 8-GPU jobs never do. 22 jobs on 4
// GPUs: fair share 4/22, so a wide job's rho is about (1000 + 100) / (8000 x
// 22 / 4) = 0.025 and a small one's about 1050 / 5500 = 0.19. The first round
// is the ceil(0.2 x 22) = 5 worst: a, b and three wide jobs, of which only a
// and b can be given GPUs, so rho after a lease is evaluated for them alone:
// 22 + 2 = 24 evaluations, not 44. b waited less, so its gain is larger.
TEST(Themis, RhoAfterALeaseOnlyForFirstRoundBidsThatFit) {
  World w;
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 20; ++i) jobs.push_back(job("wide", 8, i));
  jobs.push_back(job("a", 1, 50));
  jobs.push_back(job("b", 1, 60));
  ThemisPolicy policy;
  SchedulerInput in = w.input(100);
  for (std::size_t i = 0; i < jobs.size(); ++i) in.queued.push_back(QueuedJob{i, &jobs[i], 0, 1000});
  const auto out = policy.decide(in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::get<StartJob>(out[0]).job, 21u);
  EXPECT_EQ(std::get<StartJob>(out[1]).job, 20u);
  EXPECT_EQ(policy.rho_evaluations(), 24u);
}

// a and c hold 2 GPUs each of the 4, leased in turn; b wants all 4. At each
// lease end the leased job keeps 2 GPUs, so b never fits the 2 the auction
// could give: the lease is renewed with no auction held (a counter).
TEST(Themis, ALeaseEndNoQueuedJobFitsHoldsNoAuction) {
  World w;
  const JobSpec a = job("a", 2, 0), c = job("c", 2, 100), b = job("b", 4, 200);
  ThemisParams params;  // lease 600 s, each lease its own end (a and c end apart)
  params.aligned_leases = false;
  ThemisPolicy policy(params);
  SchedulerInput in0 = w.input(0);
  in0.queued = {QueuedJob{0, &a, 0, 5000}};
  ASSERT_EQ(policy.decide(in0).size(), 1u);
  w.view.allocate({0, 1}, 0);
  const RunningJob ra{0, &a, Placement{{0, 1}, {1, 1}}, 0, 0, 5000};
  SchedulerInput in1 = w.input(100);
  in1.running = {ra};
  in1.queued = {QueuedJob{1, &c, 0, 5000}};
  ASSERT_EQ(policy.decide(in1).size(), 1u);
  w.view.allocate({2, 3}, 1);
  const RunningJob rc{1, &c, Placement{{2, 3}, {1, 1}}, 100, 0, 5000};
  EXPECT_EQ(policy.auctions(), 2u);
  for (double t : {200.0, 600.0, 700.0, 1200.0}) {
    SchedulerInput in = w.input(t);
    in.running = {ra, rc};
    in.queued = {QueuedJob{2, &b, 0, 5000}};
    EXPECT_TRUE(policy.decide(in).empty()) << t;
  }
  EXPECT_EQ(policy.auctions(), 2u);
  ASSERT_TRUE(policy.next_timer_s(1200).has_value());
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(1200), 1300);
}

// Five 1-GPU jobs of 10,000 s arrive at 0, 100, ..., 400 on 4 GPUs, so one
// always waits; the engine's part is played here: decide() at arrivals and
// at the policy's timer, until 3,000 s. Returns the times of the timer calls.
std::vector<double> lease_end_calls(bool aligned) {
  World w;
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(job("j", 1, 100.0 * i));
  ThemisParams params;
  params.aligned_leases = aligned;
  ThemisPolicy policy(params);
  std::vector<RunningJob> running;
  std::vector<double> timer_calls;
  std::size_t arrived = 0;
  double now = 0;
  while (now <= 3000) {
    while (arrived < jobs.size() && jobs[arrived].submit_s <= now) ++arrived;
    SchedulerInput in = w.input(now);
    in.running = running;
    for (JobIndex i = 0; i < arrived; ++i)
      if (std::none_of(running.begin(), running.end(), [&](const RunningJob& r) { return r.index == i; }))
        in.queued.push_back(QueuedJob{i, &jobs[i], 0, 10000});
    for (const Decision& d : policy.decide(in)) {
      if (const auto* p = std::get_if<PreemptJob>(&d)) {
        const auto it = std::find_if(running.begin(), running.end(),
                                     [&](const RunningJob& r) { return r.index == p->job; });
        w.view.release(it->placement.gpus, it->index);
        running.erase(it);
      }
      if (const auto* st = std::get_if<StartJob>(&d)) {
        w.view.allocate(st->placement.gpus, st->job);
        running.push_back(RunningJob{st->job, &jobs[st->job], st->placement, now, 0, 10000});
      }
    }
    const double next_arrival = arrived < jobs.size() ? jobs[arrived].submit_s : 1e300;
    const double timer = policy.next_timer_s(now).value_or(1e300);
    if (timer < next_arrival) timer_calls.push_back(timer);
    now = std::min(next_arrival, timer);
  }
  return timer_calls;
}

// Leases begun at 0, 100, 200 and 300 (on the 4 GPUs) end on their own,
// 600 to 900, and so do those that follow them on each GPU: four calls per
// 600 s. Aligned, each ends at the multiple of 600 nearest to its start +
// 600 (600, 600, 600 and 1,200: 900 is halfway, rounded up), and a lease
// begun or renewed at a multiple of 600 ends 600 later: one call per
// period. (The last call listed is the first after 3,000.)
TEST(Themis, AlignedLeasesEndingInAPeriodAreAuctionedInOneCall) {
  EXPECT_EQ(lease_end_calls(false),
            (std::vector<double>{600, 700, 800, 900, 1200, 1300, 1400, 1500, 1800, 1900, 2000, 2100, 2400,
                                 2500, 2600, 2700, 3000, 3100}));
  EXPECT_EQ(lease_end_calls(true), (std::vector<double>{600, 1200, 1800, 2400, 3000, 3600}));
}

TEST(Themis, RejectsBadParameters) {
  ThemisParams params;
  params.fairness_knob = 1;
  EXPECT_THROW(ThemisPolicy{params}, InputError);
  params.fairness_knob = 0.5;
  params.lease_s = 0;
  EXPECT_THROW(ThemisPolicy{params}, InputError);
}

}  // namespace
}  // namespace vnsim
