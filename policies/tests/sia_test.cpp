// Sia: the CBC ILP against a brute force, the one-type knapsack against CBC,
// and the policy on a small T4 cluster.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "goodput_test_world.hpp"
#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/policies/sia_ilp.hpp"
#include "vnsim/policies/sia_policy.hpp"

namespace vnsim {
namespace {

double objective(const SiaIlpProblem& p, const std::vector<int>& choice) {
  double sum = 0;
  for (std::size_t i = 0; i < choice.size(); ++i)
    if (choice[i] >= 0) sum += sia_cost(p, p.value[i][choice[i]]);
  return sum;
}

bool fits(const SiaIlpProblem& p, const std::vector<int>& choice) {
  std::vector<int> used(p.capacity.size(), 0);
  for (int c : choice)
    if (c >= 0) used[p.configs[c].type] += p.configs[c].gpus;
  for (std::size_t t = 0; t < used.size(); ++t)
    if (used[t] > p.capacity[t]) return false;
  return true;
}

// Every assignment of "none or one configuration" per job.
double brute_force(const SiaIlpProblem& p) {
  const std::size_t jobs = p.value.size();
  const int options = static_cast<int>(p.configs.size()) + 1;
  std::vector<int> choice(jobs, -1);
  double best = 0;  // all jobs without GPUs
  for (long long code = 0; code < static_cast<long long>(std::pow(options, jobs)); ++code) {
    long long rest = code;
    bool allowed = true;
    for (std::size_t i = 0; i < jobs; ++i) {
      choice[i] = static_cast<int>(rest % options) - 1;
      rest /= options;
      if (choice[i] >= 0 && !(p.value[i][choice[i]] > 0)) allowed = false;
    }
    if (allowed && fits(p, choice)) best = std::min(best, objective(p, choice));
  }
  return best;
}

SiaIlpProblem two_types() {
  SiaIlpProblem p;
  // Type 0: 2 GPUs (configs 1, 2); type 1: 4 GPUs (configs 1, 2, 4).
  p.configs = {{0, 1, 1}, {0, 2, 1}, {1, 1, 1}, {1, 2, 1}, {1, 4, 1}};
  p.capacity = {2, 4};
  return p;
}

TEST(SiaIlp, HandExample) {
  // p = -0.5, lambda = 1.1: cost(v) = v^-0.5 - 1.1. Two jobs, values
  //   A: 1 (t0x1), 1.9 (t0x2), 1.2 (t1x1), 2.2 (t1x2), 4 (t1x4)
  //   B: 1 (t0x1), 1.1 (t0x2), 1 (t1x1), 1.5 (t1x2), 1.6 (t1x4)
  // A on t1x4 (0.5 - 1.1 = -0.6) + B on t0x2 (0.9535 - 1.1 = -0.1465) =
  // -0.7465; the runner-up A t1x2 + B t1x2 = (0.6742 - 1.1) + (0.8165 - 1.1)
  // = -0.7093, and A t1x4 + B t0x1 = -0.6 - 0.1 = -0.7.
  SiaIlpProblem p = two_types();
  p.value = {{1, 1.9, 1.2, 2.2, 4}, {1, 1.1, 1, 1.5, 1.6}};
  EXPECT_EQ(solve_sia_ilp(p), (std::vector<int>{4, 1}));
  EXPECT_NEAR(objective(p, {4, 1}), -0.7465, 1e-4);
}

TEST(SiaIlp, MatchesBruteForceOnRandomTinyProblems) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 40; ++trial) {
    SiaIlpProblem p = two_types();
    p.p = trial % 2 == 0 ? -0.5 : 0.5;
    for (int j = 0; j < 4; ++j) {
      std::vector<double> row;
      for (std::size_t c = 0; c < p.configs.size(); ++c) {
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
        // 1 in 6 pairs not allowed; otherwise a goodput ratio in [1, 4].
        row.push_back(u < 1.0 / 6 ? 0.0 : 1 + 3 * u);
      }
      p.value.push_back(row);
    }
    const std::vector<int> ilp = solve_sia_ilp(p);
    ASSERT_TRUE(fits(p, ilp)) << "trial " << trial;
    EXPECT_NEAR(objective(p, ilp), brute_force(p), 1e-9) << "trial " << trial;
  }
}

TEST(SiaIlp, IdenticalJobsShareOneGroupAndSplitItsCounts) {
  // Three jobs with the same row: values 1 (t0x1), 1.5 (t0x2), 1 (t1x1),
  // 1.5 (t1x2), 2 (t1x4); cost(v) = v^-0.5 - 1.1 = -0.1, -0.2835, -0.1,
  // -0.2835, -0.3929. Two GPUs each fit exactly (2 + 4): 3 x -0.2835 =
  // -0.8505, better than t1x4 + t0x1 + t0x1 = -0.5929 or any mix with 1-GPU
  // pairs. The merged ILP picks t0x2 once and t1x2 twice; the counts go to
  // the jobs in order (configurations by index).
  SiaIlpProblem p = two_types();
  p.value.assign(3, {1, 1.5, 1, 1.5, 2});
  const std::vector<int> chosen = solve_sia_ilp(p);
  EXPECT_EQ(chosen, (std::vector<int>{1, 3, 3}));
  EXPECT_NEAR(objective(p, chosen), -0.8505, 1e-4);
}

// Four jobs whose rows are drawn from a pool of two, so jobs repeat rows
// (merged groups), with goodput that may fall with more GPUs (dominated
// configurations dropped); `pool_of` gets each job's pool index.
SiaIlpProblem pooled_problem(std::mt19937_64& rng, int trial, std::vector<std::size_t>& pool_of) {
  auto u01 = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  SiaIlpProblem p = two_types();
  p.p = trial % 2 == 0 ? -0.5 : 0.5;
  std::vector<std::vector<double>> pool(2);
  for (std::vector<double>& row : pool)
    for (std::size_t c = 0; c < p.configs.size(); ++c) row.push_back(u01() < 0.15 ? 0.0 : 1 + 3 * u01());
  pool_of.clear();
  for (int j = 0; j < 4; ++j) {
    pool_of.push_back(u01() < 0.5 ? 0 : 1);
    p.value.push_back(pool[pool_of.back()]);
  }
  return p;
}

TEST(SiaIlp, MatchesBruteForceWithRepeatedRowsAndDominatedConfigurations) {
  std::mt19937_64 rng(7);
  std::vector<std::size_t> pool_of;
  for (int trial = 0; trial < 40; ++trial) {
    const SiaIlpProblem p = pooled_problem(rng, trial, pool_of);
    const std::vector<int> ilp = solve_sia_ilp(p);
    ASSERT_TRUE(fits(p, ilp)) << "trial " << trial;
    EXPECT_NEAR(objective(p, ilp), brute_force(p), 1e-9) << "trial " << trial;
  }
}

TEST(SiaIlp, RowClassesGiveTheSameAnswerAndAreNotLookedAtAgain) {
  // The random problems of the test above, each job's pool row as its row
  // class: the same answer as without classes.
  std::mt19937_64 rng(7);
  std::vector<std::size_t> pool_of;
  for (int trial = 0; trial < 40; ++trial) {
    SiaIlpProblem p = pooled_problem(rng, trial, pool_of);
    for (std::size_t j = 0; j < pool_of.size(); ++j)
      p.row_class.push_back(j == 3 ? SiaIlpProblem::kNoClass : pool_of[j]);
    const std::vector<int> with = solve_sia_ilp(p);
    p.row_class.clear();
    EXPECT_EQ(with, solve_sia_ilp(p)) << "trial " << trial;
  }
  // A class's later jobs are grouped with its first job without their rows
  // being priced again: the second job's (contract-breaking) row is never
  // read. Priced as the first job's row (t0x1 -0.1, t0x2 1.5^-0.5 - 1.1 =
  // -0.2835, type 0 only), the two jobs share 2 GPUs of type 0: one on t0x2
  // beats both on t0x1 (-0.2). Priced as its own row, the second job takes
  // t1x4 (4^-0.5 - 1.1 = -0.6).
  SiaIlpProblem p = two_types();
  p.value = {{1, 1.5, 0, 0, 0}, {0, 0, 1, 1.5, 4}};
  p.row_class = {0, 0};
  EXPECT_EQ(solve_sia_ilp(p), (std::vector<int>{1, -1}));
  p.row_class.clear();
  EXPECT_EQ(solve_sia_ilp(p), (std::vector<int>{1, 4}));
  // So the later rows of a class may be left empty (the policy does not
  // copy them); a row that is read must still be whole.
  p.value = {{1, 1.5, 0, 0, 0}, {}};
  p.row_class = {0, 0};
  EXPECT_EQ(solve_sia_ilp(p), (std::vector<int>{1, -1}));
  p.row_class = {0, 1};
  EXPECT_THROW(solve_sia_ilp(p), std::invalid_argument);
}

TEST(SiaIlp, JobsWhoseBestConfigurationsAllFitTakeThem) {
  // Capacity 8 + 16 holds any four jobs' best configurations (at most 4 GPUs
  // each), so each job takes its cheapest configuration: the brute force's
  // optimum, with no trade-off between jobs.
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    SiaIlpProblem p = two_types();
    p.capacity = {8, 16};
    p.p = trial % 2 == 0 ? -0.5 : 0.5;
    for (int j = 0; j < 4; ++j) {
      std::vector<double> row;
      for (std::size_t c = 0; c < p.configs.size(); ++c)
        row.push_back(1 + 3 * (static_cast<double>(rng() >> 11) * 0x1.0p-53));
      p.value.push_back(row);
    }
    const std::vector<int> ilp = solve_sia_ilp(p);
    for (std::size_t j = 0; j < ilp.size(); ++j) {
      ASSERT_GE(ilp[j], 0);
      for (std::size_t c = 0; c < p.configs.size(); ++c)
        EXPECT_LE(sia_cost(p, p.value[j][ilp[j]]), sia_cost(p, p.value[j][c])) << "trial " << trial;
    }
    EXPECT_NEAR(objective(p, ilp), brute_force(p), 1e-9) << "trial " << trial;
  }
}

TEST(SiaIlp, ARelativeGapOrANodeLimitStillGivesAGoodFeasibleAnswer) {
  // Six jobs competing for 2 + 4 GPUs. With relative_gap 0.05 the answer is
  // feasible and its cost within 5% of the brute-force optimum (all costs
  // are negative: a worse answer is a larger one).
  std::mt19937_64 rng(5);
  auto u01 = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  for (int trial = 0; trial < 20; ++trial) {
    SiaIlpProblem p = two_types();
    p.relative_gap = 0.05;
    for (int j = 0; j < 6; ++j) {
      std::vector<double> row;
      for (std::size_t c = 0; c < p.configs.size(); ++c) row.push_back(u01() < 0.15 ? 0.0 : 1 + 3 * u01());
      p.value.push_back(row);
    }
    const std::vector<int> ilp = solve_sia_ilp(p);
    ASSERT_TRUE(fits(p, ilp)) << "trial " << trial;
    const double best = brute_force(p);
    EXPECT_GE(objective(p, ilp), best - 1e-9) << "trial " << trial;
    EXPECT_LE(objective(p, ilp), best * (1 - 0.05) + 1e-9) << "trial " << trial;
    // A one-node search still returns a feasible allocation that beats
    // giving no job GPUs (objective 0).
    p.relative_gap = 0;
    p.max_bb_nodes = 1;
    const std::vector<int> capped = solve_sia_ilp(p);
    ASSERT_TRUE(fits(p, capped)) << "trial " << trial;
    EXPECT_LT(objective(p, capped), 0) << "trial " << trial;
    EXPECT_GE(objective(p, capped), best - 1e-9) << "trial " << trial;
  }
}

// One GPU type, 4 GPUs (configs 1, 2, 4): the knapsack's shape.
SiaIlpProblem one_type() {
  SiaIlpProblem p;
  p.configs = {{0, 1, 1}, {0, 2, 1}, {0, 4, 1}};
  p.capacity = {4};
  return p;
}

TEST(SiaKnapsack, HandExample) {
  // cost(v) = v^-0.5 - 1.1. Values (1, 2, 4 GPUs) and costs:
  //   A: 1, 1.96, 3.24 -> -0.1, -0.385714, -0.544444
  //   B: 1, 1.44, 1.69 -> -0.1, -0.266667, -0.330769
  //   C: 1, 1.21, 1.21 -> -0.1, -0.190909, -0.190909
  // Within 4 GPUs: A2 + B2 = -0.652381 beats A2 + B1 + C1 = -0.585714,
  // A2 + C2 = -0.576623, A4 = -0.544444 and B2 + C2 = -0.457576.
  SiaIlpProblem p = one_type();
  p.value = {{1, 1.96, 3.24}, {1, 1.44, 1.69}, {1, 1.21, 1.21}};
  for (const bool knapsack : {true, false}) {
    p.knapsack = knapsack;
    const std::vector<int> chosen = solve_sia_ilp(p);
    EXPECT_EQ(chosen, (std::vector<int>{1, 1, -1})) << "knapsack " << knapsack;
    EXPECT_NEAR(objective(p, chosen), -0.652381, 1e-6) << "knapsack " << knapsack;
  }
}

TEST(SiaKnapsack, EqualsOptimalCbcOnRandomOneTypeProblems) {
  // 6-12 jobs on 3-24 GPUs of one type (configs 1, 2, 4 GPUs on a node, then
  // 2 and 3 nodes of 4), rows from a small pool so that groups merge, 1 in 6
  // pairs not allowed, both signs of p. CBC solves to optimality (no gap, no
  // node limit); the knapsack must reach the same objective, within
  // capacity. And with its work bound at 0 the round goes to CBC instead.
  std::mt19937_64 rng(2024);
  auto u01 = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  int contended = 0;
  for (int trial = 0; trial < 200; ++trial) {
    SiaIlpProblem p;
    p.configs = {{0, 1, 1}, {0, 2, 1}, {0, 4, 1}, {0, 8, 2}, {0, 12, 3}};
    p.capacity = {3 + static_cast<int>(u01() * 22)};
    p.p = trial % 2 == 0 ? -0.5 : 0.5;
    p.relative_gap = 0;
    p.max_bb_nodes = 0;
    std::vector<std::vector<double>> pool(3);
    for (std::vector<double>& row : pool) {
      double v = 1;
      for (std::size_t c = 0; c < p.configs.size(); ++c) {
        v *= 0.9 + 0.8 * u01();  // rising or falling with more GPUs
        row.push_back(u01() < 1.0 / 6 ? 0.0 : v);
      }
    }
    const int jobs = 6 + static_cast<int>(u01() * 7);
    for (int j = 0; j < jobs; ++j) p.value.push_back(pool[static_cast<std::size_t>(u01() * 3)]);
    p.knapsack = false;
    const std::vector<int> cbc = solve_sia_ilp(p);
    p.knapsack = true;
    const std::vector<int> dp = solve_sia_ilp(p);
    ASSERT_TRUE(fits(p, dp)) << "trial " << trial;
    EXPECT_NEAR(objective(p, dp), objective(p, cbc), 1e-9) << "trial " << trial;
    p.max_knapsack_work = 0;
    EXPECT_EQ(solve_sia_ilp(p), cbc) << "trial " << trial;
    // Rounds where the jobs' cheapest configurations fit skip both solvers.
    int demand = 0;
    for (const std::vector<double>& row : p.value) {
      int best = -1;
      for (std::size_t c = 0; c < row.size(); ++c)
        if (sia_cost(p, row[c]) < 0 && p.configs[c].gpus <= p.capacity[0] &&
            (best < 0 || sia_cost(p, row[c]) < sia_cost(p, row[best])))
          best = static_cast<int>(c);
      if (best >= 0) demand += p.configs[best].gpus;
    }
    contended += demand > p.capacity[0];
  }
  EXPECT_GT(contended, 100);  // most trials reach a solver
}

using testing::job;

TEST(Sia, GivesEveryJobGpusWithinCapacityAndWaitsForTheRound) {
  const Cluster cluster(testing::test_cluster("pcie-t4-1x2x4"));
  const Topology topology(cluster);
  ClusterView view(cluster, topology);
  const std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 5000), job("b", "imagenet", 200, 5000),
                                     job("c", "yolov3", 8, 5000)};
  SchedulerInput in;
  in.now_s = 0;
  in.view = &view;
  for (std::size_t i = 0; i < jobs.size(); ++i) in.queued.push_back(QueuedJob{i, &jobs[i], 0, -1});
  SiaPolicy sia;
  const std::vector<Decision> ds = sia.decide(in);
  // lambda = 1.1 > 1 >= every normalised cost term, so leaving a job out
  // never pays while GPUs remain: all three start.
  int starts = 0;
  int gpus = 0;
  for (const Decision& d : ds)
    if (const auto* s = std::get_if<StartJob>(&d)) {
      ++starts;
      gpus += static_cast<int>(s->placement.gpus.size());
    }
  EXPECT_EQ(starts, 3);
  EXPECT_LE(gpus, 8);
  EXPECT_EQ(sia.last_round().size(), 3u);
  for (const auto& [j, c] : sia.last_round()) {
    EXPECT_EQ(c.gpu_type, "T4");
    EXPECT_GE(c.batch.global_batch, 1) << j;
  }
  in.now_s = 30;
  EXPECT_TRUE(sia.decide(in).empty());
  EXPECT_EQ(sia.next_timer_s(30), 60);
}

// Rounds every 60 s over `jobs` on `cluster`, each round's decisions applied
// on the view (a start or resize takes its placement, a preemption queues
// the job again); the decisions of every round.
// With follow_timer, only the times the policy's timer asks for are called
// (the rounds in between get no decisions).
std::vector<std::vector<Decision>> run_rounds(SiaPolicy& sia, const Cluster& cluster,
                                              const std::vector<JobSpec>& jobs, int rounds,
                                              std::vector<std::optional<Placement>> placed = {},
                                              bool follow_timer = false, int* calls = nullptr) {
  const Topology topology(cluster);
  ClusterView view(cluster, topology);
  placed.resize(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (placed[i]) view.allocate(placed[i]->gpus, i);
  std::vector<std::vector<Decision>> out(rounds);
  for (int r = 0; r < rounds;) {
    SchedulerInput in;
    in.now_s = 60.0 * r;
    in.view = &view;
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (placed[i])
        in.running.push_back(RunningJob{i, &jobs[i], *placed[i]});
      else
        in.queued.push_back(QueuedJob{i, &jobs[i], 0, -1});
    out[r] = sia.decide(in);
    if (calls != nullptr) ++*calls;
    for (const Decision& d : out[r]) {
      if (const auto* s = std::get_if<StartJob>(&d)) {
        view.allocate(s->placement.gpus, s->job);
        placed[s->job] = s->placement;
      }
      if (const auto* z = std::get_if<ResizeJob>(&d)) {
        view.release(placed[z->job]->gpus, z->job);
        view.allocate(z->placement.gpus, z->job);
        placed[z->job] = z->placement;
      }
      if (const auto* p = std::get_if<PreemptJob>(&d)) {
        view.release(placed[p->job]->gpus, p->job);
        placed[p->job].reset();
      }
    }
    const std::optional<double> next = sia.next_timer_s(in.now_s);
    r = follow_timer && next ? static_cast<int>(std::lround(*next / 60.0)) : r + 1;
  }
  return out;
}

std::string describe(const std::vector<Decision>& ds) {
  std::string s;
  auto gpus = [](const Placement& p) {
    std::string g;
    for (const GpuId id : p.gpus) g += " " + std::to_string(id);
    return g;
  };
  for (const Decision& d : ds) {
    if (const auto* a = std::get_if<StartJob>(&d))
      s += "start " + std::to_string(a->job) + gpus(a->placement);
    if (const auto* z = std::get_if<ResizeJob>(&d))
      s += "resize " + std::to_string(z->job) + " batch " + std::to_string(z->global_batch) +
           gpus(z->placement);
    if (const auto* p = std::get_if<PreemptJob>(&d)) s += "preempt " + std::to_string(p->job);
    s += "; ";
  }
  return s;
}

TEST(Sia, AnUnchangedRoundSolvesNothingAndDecidesTheSame) {
  // An imagenet job runs on 2 of node 0's T4s and a cifar10 job on 2 of
  // node 1's, on 8 T4s. Between rounds with the same jobs, configurations,
  // restart counts and goodput epochs only the restart factors change; the
  // policy then keeps the standing allocation without a solve while a solve
  // at a later time proves it optimal. The restart factor of a young job
  // holds the imagenet job on its 2 GPUs for the first rounds and lets it
  // move to 4 later: the round of that move, and every other, must be what
  // solving every round decides.
  const Cluster cluster(testing::test_cluster("pcie-t4-1x2x4"));
  const std::vector<JobSpec> jobs = {job("a", "imagenet", 200, 1000000000LL),
                                     job("b", "cifar10", 128, 1000000000LL)};
  std::vector<std::optional<Placement>> placed(jobs.size());
  placed[0] = Placement{{0, 1}, {}};
  placed[1] = Placement{{4, 5}, {}};
  SiaParams always;
  always.reuse_standing = false;
  SiaPolicy solving(always);
  SiaPolicy reusing;
  const int rounds = 300;
  const auto expected = run_rounds(solving, cluster, jobs, rounds, placed);
  const auto got = run_rounds(reusing, cluster, jobs, rounds, placed);
  int quiet = 0;
  int moves_after_the_first_rounds = 0;
  for (int r = 0; r < rounds; ++r) {
    EXPECT_EQ(describe(got[r]), describe(expected[r])) << "round " << r;
    quiet += got[r].empty();
    if (r > 3)
      for (const Decision& d : got[r])
        moves_after_the_first_rounds += std::holds_alternative<ResizeJob>(d) &&
                                        std::get<ResizeJob>(d).mode == ResizeMode::CheckpointRestart;
  }
  EXPECT_GT(moves_after_the_first_rounds, 0);
  EXPECT_GT(quiet, rounds - 10);  // most rounds change nothing
  EXPECT_EQ(solving.solve_count(), static_cast<std::size_t>(rounds));
  // The solves left are the rounds after a goodput epoch, a batch change's
  // epoch or a move changed the keys (87 of 300 here).
  EXPECT_LE(reusing.solve_count(), rounds / 3u);
}

TEST(Sia, SkippedRoundsAreOnesThatWouldDecideNothing) {
  // The scenario above with a yolov3 job, called only when the policy's
  // timer asks: the rounds it skips are ones where calling every round
  // decides nothing, and the rounds it runs decide the same (among them
  // batch changes at goodput epoch changes, rounds 78 and 91).
  const Cluster cluster(testing::test_cluster("pcie-t4-1x2x4"));
  const std::vector<JobSpec> jobs = {job("a", "yolov3", 8, 1000000000LL),
                                     job("b", "cifar10", 128, 1000000000LL)};
  std::vector<std::optional<Placement>> placed(jobs.size());
  placed[0] = Placement{{0, 1}, {}};
  placed[1] = Placement{{4, 5}, {}};
  SiaParams every;
  every.skip_rounds = false;
  SiaPolicy calling(every);
  SiaPolicy skipping;
  const int rounds = 1000;
  const auto expected = run_rounds(calling, cluster, jobs, rounds, placed);
  int calls = 0;
  const auto got = run_rounds(skipping, cluster, jobs, rounds, placed, true, &calls);
  for (int r = 0; r < rounds; ++r) EXPECT_EQ(describe(got[r]), describe(expected[r])) << "round " << r;
  EXPECT_LT(calls, rounds / 2);
}

TEST(Sia, RestartCostsAreTheSiaSimulatorOnes) {
  EXPECT_EQ(SiaPolicy::restart_cost_s("imagenet"), 250);
  EXPECT_EQ(SiaPolicy::restart_cost_s("bert"), 120);
  EXPECT_EQ(SiaPolicy::restart_cost_s("ncf"), 30);
}

}  // namespace
}  // namespace vnsim
