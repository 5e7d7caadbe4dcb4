// Pollux's rounds on small clusters of T4 nodes: how long a search runs,
// and which rounds reuse the last search or are slept through, with the
// decisions a full search would make.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "goodput_test_world.hpp"
#include "vnsim/policies/pollux_policy.hpp"

namespace vnsim {
namespace {

using testing::describe;
using testing::job;
using testing::World;

TEST(Pollux, LargeProblemsRunFewerGenerations) {
  // 1,000 jobs: 100 x 100 x 1,000 = 1e7 row evaluations > the 2e6 cap, so
  // the round runs 2e6 / (100 x 1,000) = 20 generations.
  World w(16);
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 1000; ++i) jobs.push_back(job("j" + std::to_string(i), "cifar10", 128, 1000, i));
  PolluxParams params;
  params.patience = 0;  // every generation the cap allows
  PolluxPolicy p(params);
  const auto ds = p.decide(w.input(0, jobs));
  EXPECT_EQ(p.last_generations(), 20);
  EXPECT_LE(p.last_round().size(), 64u);  // at most one job per GPU
  EXPECT_FALSE(ds.empty());
}

TEST(Pollux, CappedRoundsRunDownToMinGenerations) {
  // 1,000 jobs on 16 nodes x 4 T4 under a cap of 2e5 rows: 2e5 / (100 x
  // 1,000) = 2 generations, the cap alone deciding (min_generations 1); a
  // floor of 10 runs 10; a cap of 5e4 (half a generation) runs the floor.
  World w(16);
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 1000; ++i) jobs.push_back(job("j" + std::to_string(i), "cifar10", 128, 1000, i));
  auto generations = [&](double cap, int floor) {
    PolluxParams params;
    params.patience = 0;
    params.max_row_evaluations = cap;
    params.min_generations = floor;
    PolluxPolicy p(params);
    p.decide(w.input(0, jobs));
    return p.last_generations();
  };
  EXPECT_EQ(PolluxParams{}.min_generations, 1);
  EXPECT_EQ(generations(2e5, 1), 2);
  EXPECT_EQ(generations(2e5, 10), 10);
  EXPECT_EQ(generations(5e4, 1), 1);
  EXPECT_EQ(generations(5e4, 0), 0);
}

TEST(Pollux, PatienceEndsTheSearchOnceItStopsImproving) {
  // One cifar10 job on 2 nodes x 4 T4. Without patience every round runs
  // all 100 generations. With patience 5 the first round stops between 5
  // and 100 generations, at the allocation the full search finds. In the
  // next round the seeded population already holds that allocation and the
  // job runs there, so nothing beats it: exactly 5 generations.
  std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 39062)};
  World full_world(2);
  PolluxParams every_generation;
  every_generation.patience = 0;
  PolluxPolicy full(every_generation);
  full.decide(full_world.input(0, jobs));
  EXPECT_EQ(full.last_generations(), 100);
  ASSERT_EQ(full.last_round().count(0), 1u);

  World w(2);
  PolluxParams params;
  params.patience = 5;
  params.max_skipped_rounds = 0;  // the next round searches although nothing changed
  PolluxPolicy p(params);
  const auto first = p.decide(w.input(0, jobs));
  EXPECT_GE(p.last_generations(), 5);
  EXPECT_LT(p.last_generations(), 100);
  ASSERT_EQ(p.last_round().count(0), 1u);
  EXPECT_EQ(p.last_round().at(0).gpus, full.last_round().at(0).gpus);
  EXPECT_EQ(p.last_round().at(0).nodes, full.last_round().at(0).nodes);
  const StartJob* s = nullptr;
  for (const Decision& d : first)
    if (s == nullptr) s = std::get_if<StartJob>(&d);
  ASSERT_NE(s, nullptr);
  SchedulerInput later = w.running_job_0(60, jobs, *s);
  p.decide(later);
  EXPECT_EQ(p.last_generations(), 5);
}

TEST(Pollux, UnchangedRoundsReuseTheLastSearch) {
  // One cifar10 job on 2 nodes x 4 T4, max_skipped_rounds 2. The job runs
  // where round 0 put it, so rounds 60 and 120 change nothing: they keep its
  // allocation without a search. Round 180 has skipped twice in a row and
  // searches; a job arriving at 240 changes the job set, so 240 searches.
  std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 39062), job("b", "cifar10", 128, 1000, 200)};
  const std::vector<JobSpec> only_a(jobs.begin(), jobs.begin() + 1);
  PolluxParams params;
  params.max_skipped_rounds = 2;
  params.patience = 0;
  PolluxPolicy p(params);
  World w0(2);
  const auto first = p.decide(w0.input(0, only_a));
  EXPECT_EQ(p.searches(), 1);
  ASSERT_EQ(p.last_round().count(0), 1u);
  const PolluxPolicy::Chosen chosen = p.last_round().at(0);
  const StartJob* s = nullptr;
  for (const Decision& d : first)
    if (s == nullptr) s = std::get_if<StartJob>(&d);
  ASSERT_NE(s, nullptr);
  for (double t : {60.0, 120.0}) {
    World w(2);
    const auto ds = p.decide(w.running_job_0(t, only_a, *s));
    EXPECT_EQ(p.searches(), 1) << t;
    EXPECT_EQ(p.last_generations(), 0) << t;
    ASSERT_EQ(p.last_round().count(0), 1u);
    EXPECT_EQ(p.last_round().at(0).gpus, chosen.gpus);
    EXPECT_EQ(p.last_round().at(0).nodes, chosen.nodes);
    for (const Decision& d : ds) EXPECT_FALSE(std::holds_alternative<StartJob>(d)) << describe(ds);
  }
  World w180(2);
  p.decide(w180.running_job_0(180, only_a, *s));
  EXPECT_EQ(p.searches(), 2);
  EXPECT_EQ(p.last_generations(), 100);
  World w240(2);
  SchedulerInput in = w240.running_job_0(240, jobs, *s);
  in.queued.push_back(QueuedJob{1, &jobs[1], 0, -1});
  p.decide(in);
  EXPECT_EQ(p.searches(), 3);

  // A job that is not where the last search put it (here: it never
  // started) makes the round search; so does the default, every round.
  PolluxPolicy q(params);
  World v0(2);
  q.decide(v0.input(0, only_a));
  World v60(2);
  q.decide(v60.input(60, only_a));
  EXPECT_EQ(q.searches(), 2);
  PolluxParams every_round;
  every_round.max_skipped_rounds = 0;
  PolluxPolicy every(every_round);
  World u0(2);
  every.decide(u0.input(0, only_a));
  World u60(2);
  every.decide(u60.running_job_0(60, only_a, *s));
  EXPECT_EQ(every.searches(), 2);
}

TEST(Pollux, ThousandQueuedJobsOn2500Gpus) {
  // 625 nodes x 4 T4 = 2,500 GPUs, 1,000 queued jobs: 20 generations (as
  // above). More GPUs than jobs and a harmonic mean that a job without GPUs
  // pulls down to ~1e-3, so the search gives every job GPUs.
  World w(625);
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 1000; ++i) jobs.push_back(job("j" + std::to_string(i), "cifar10", 128, 1000, i));
  PolluxParams params;
  params.patience = 0;  // every generation the cap allows
  PolluxPolicy p(params);
  const auto ds = p.decide(w.input(0, jobs));
  EXPECT_EQ(p.last_generations(), 20);
  EXPECT_EQ(p.last_round().size(), 1000u);
  int gpus = 0;
  for (const auto& [j, c] : p.last_round()) gpus += c.gpus;
  EXPECT_LE(gpus, 2500);
}

// One Pollux round of job 0 alone (running where `start` put it after t =
// 0) or of job 0 with job 1 queued from its submission on.
SchedulerInput round_input(World& w, double t, const std::vector<JobSpec>& jobs, const StartJob* start) {
  if (start == nullptr) {
    // Job 0 alone, pointing into `jobs` (which outlives the input).
    SchedulerInput in = w.input(t, jobs);
    in.queued.resize(1);
    return in;
  }
  SchedulerInput in = w.running_job_0(t, jobs, *start);
  if (jobs.size() > 1 && t >= jobs[1].submit_s) in.queued.push_back(QueuedJob{1, &jobs[1], 0, -1});
  return in;
}

TEST(Pollux, QuietRoundsAreSleptThroughWithTheSameDecisions) {
  // One cifar10 job on 2 nodes x 4 T4, and a second one arriving at 3,615 s,
  // between two rounds. `awake` runs every 60-s round; `sleeper` (the
  // default) is called only when its timer asks and at the arrival. Each
  // round `sleeper` runs decides exactly what `awake` decides then, and
  // `awake` decides nothing in the rounds `sleeper` sleeps through: they
  // reuse the last search (max_skipped_rounds) while the job stays within
  // an epoch of its noise profile. Slept rounds evaluate no goodput at all.
  const std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 390620), job("b", "cifar10", 128, 1000, 3615)};
  PolluxParams every_round;
  every_round.sleep_quiet_rounds = false;
  PolluxPolicy awake(every_round);
  PolluxPolicy sleeper;
  World w0(2);
  const auto first = awake.decide(round_input(w0, 0, jobs, nullptr));
  World v0(2);
  ASSERT_EQ(describe(sleeper.decide(round_input(v0, 0, jobs, nullptr))), describe(first));
  const StartJob* s = nullptr;
  for (const Decision& d : first)
    if (s == nullptr) s = std::get_if<StartJob>(&d);
  ASSERT_NE(s, nullptr);
  double sleeper_next = *sleeper.next_timer_s(0);
  long slept = 0;
  long queries_slept_through = 0;  // what `awake` evaluated in those rounds
  bool woke_for_the_arrival = false;
  for (double t = 60; t <= 4200; t += 60) {
    if (t > 3615 && !woke_for_the_arrival) {  // the arrival's event
      World a(2);
      EXPECT_TRUE(awake.decide(round_input(a, 3615, jobs, s)).empty());
      if (sleeper_next > 3615) {
        World b(2);
        const long before = sleeper.estimator().goodput_queries();
        EXPECT_TRUE(sleeper.decide(round_input(b, 3615, jobs, s)).empty());
        EXPECT_EQ(sleeper.estimator().goodput_queries(), before);
        sleeper_next = *sleeper.next_timer_s(3615);
        EXPECT_EQ(sleeper_next, 3660);
      }
      woke_for_the_arrival = true;
    }
    World a(2);
    const long awake_before = awake.estimator().goodput_queries();
    const std::string want = describe(awake.decide(round_input(a, t, jobs, s)));
    if (t < sleeper_next) {
      EXPECT_EQ(want, "") << "a round slept through at " << t << " decides something";
      ++slept;
      queries_slept_through += awake.estimator().goodput_queries() - awake_before;
      continue;
    }
    World b(2);
    EXPECT_EQ(describe(sleeper.decide(round_input(b, t, jobs, s))), want) << t;
    EXPECT_EQ(sleeper.searches(), awake.searches()) << t;
    sleeper_next = *sleeper.next_timer_s(t);
  }
  // Most rounds were slept through: the ten reused ones after each search.
  EXPECT_GE(slept, 40);
  EXPECT_EQ(sleeper.rounds_run() + sleeper.rounds_slept(), awake.rounds_run());
  EXPECT_EQ(sleeper.rounds_slept(), slept);
  EXPECT_EQ(sleeper.searches(), awake.searches());
  // The rounds it ran evaluated what `awake` evaluated in them; the slept
  // ones nothing, where `awake` evaluated each job's goodput.
  EXPECT_GE(queries_slept_through, 2 * slept);
  EXPECT_EQ(sleeper.estimator().goodput_queries(),
            awake.estimator().goodput_queries() - queries_slept_through);
  ASSERT_EQ(sleeper.last_round().count(1), 1u);
  EXPECT_EQ(sleeper.last_round().at(1).gpus, awake.last_round().at(1).gpus);
}

// A round of `jobs` in which the jobs `started` put on GPUs run there
// since t = 0 and the others wait.
SchedulerInput with_running(World& w, double t, const std::vector<JobSpec>& jobs,
                            const std::vector<StartJob>& started) {
  SchedulerInput in;
  in.now_s = t;
  in.view = &w.view;
  std::vector<bool> runs(jobs.size(), false);
  for (const StartJob& s : started) {
    w.view.allocate(s.placement.gpus, s.job);
    in.running.push_back(RunningJob{s.job, &jobs[s.job], s.placement, 0,
                                    t * static_cast<double>(s.placement.gpus.size()), -1});
    runs[s.job] = true;
  }
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!runs[i]) in.queued.push_back(QueuedJob{i, &jobs[i], 0, -1});
  return in;
}

std::vector<StartJob> starts_of(const std::vector<Decision>& ds) {
  std::vector<StartJob> out;
  for (const Decision& d : ds)
    if (const auto* s = std::get_if<StartJob>(&d)) out.push_back(*s);
  return out;
}

TEST(Pollux, TiesWithinRoundingKeepTheRunningJobs) {
  // 32 cifar10 jobs on 4 nodes of 4 T4: one GPU each for 16 of them (fair
  // share 1 GPU, so each one's speedup there is exactly 1). Any other 16 on
  // one GPU each score the same in exact arithmetic: the fitness sum adds
  // the same terms in another order. With tie_tolerance 0 that rounding
  // makes the next search preempt running jobs for waiting ones (GA order
  // puts the least served first); by default they stay.
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 32; ++i) jobs.push_back(job("j" + std::to_string(i), "cifar10", 128, 390620));
  auto next_search = [&](double tolerance) {
    PolluxParams params;
    params.tie_tolerance = tolerance;
    params.max_skipped_rounds = 0;  // search every round
    PolluxPolicy p(params);
    World w0(4);
    const std::vector<StartJob> started = starts_of(p.decide(w0.input(0, jobs)));
    EXPECT_EQ(started.size(), 16u);
    World w1(4);
    return describe(p.decide(with_running(w1, 60, jobs, started)));
  };
  EXPECT_NE(next_search(0), "");
  EXPECT_EQ(next_search(1e-9), "");
}

TEST(Pollux, SearchesThatKeepEverythingBackOff) {
  // Eight cifar10 jobs on one node of 4 T4, four running. Every search on
  // the same inputs keeps them (a tie, above) and decides nothing, so the
  // rounds reused before the next search grow 10, 40, 160: searches at
  // rounds 11, 52 and 213. Without back-off (quiet_backoff 1): every 11th
  // round. A new job makes its round search and brings the limit back to
  // 10. (The in-place batch changes of rounds 13 and 42 are no search.)
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back(job("j" + std::to_string(i), "cifar10", 128, 390620000));
  auto searches_over = [&](double backoff, int rounds, int arrival_round) {
    PolluxParams params;
    params.quiet_backoff = backoff;
    params.sleep_quiet_rounds = false;  // every round called, to count them
    PolluxPolicy p(params);
    World w0(1);
    const std::vector<StartJob> started = starts_of(p.decide(w0.input(0, jobs)));
    std::vector<long> at;
    long last = p.searches();
    for (int r = 1; r < rounds; ++r) {
      World w(1);
      std::vector<JobSpec> now_jobs = jobs;
      if (r >= arrival_round) now_jobs.push_back(job("late", "cifar10", 128, 1000));
      p.decide(with_running(w, 60.0 * r, now_jobs, started));
      if (p.searches() != last) at.push_back(r);
      last = p.searches();
    }
    return at;
  };
  EXPECT_EQ(searches_over(4, 300, 1000), (std::vector<long>{11, 52, 213}));
  EXPECT_EQ(searches_over(1, 60, 1000), (std::vector<long>{11, 22, 33, 44, 55}));
  EXPECT_EQ(searches_over(4, 120, 60), (std::vector<long>{11, 52, 60, 71, 112}));
}

TEST(Pollux, AWakeUpCalledLateStillRunsItsRound) {
  // A real clock (vnexec) calls a little after the timer: the wake-up round
  // runs then, and only the rounds before it count as slept through.
  const std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 390620)};
  PolluxPolicy p;
  World w0(2);
  const std::vector<StartJob> started = starts_of(p.decide(w0.input(0, jobs)));
  ASSERT_EQ(started.size(), 1u);
  double t = 0;
  double wake = 60;
  while (wake == t + 60 && t < 6000) {  // on the timer until it sleeps
    t = wake;
    World w(2);
    p.decide(with_running(w, t, jobs, started));
    wake = *p.next_timer_s(t);
  }
  ASSERT_GT(wake, t + 60);
  const long run = p.rounds_run();
  ASSERT_EQ(p.rounds_slept(), 0);
  World late(2);
  p.decide(with_running(late, wake + 0.5, jobs, started));
  EXPECT_EQ(p.rounds_run(), run + 1);
  EXPECT_EQ(p.rounds_slept(), std::lround((wake - t) / 60) - 1);
  EXPECT_EQ(*p.next_timer_s(wake + 0.5), wake + 60.5);
}

}  // namespace
}  // namespace vnsim
