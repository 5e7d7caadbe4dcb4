// What Pollux's search keeps between children and between rounds: a row's
// fitness term while the row stays, and goodput tables while a job's inputs
// stay. Both must give exactly what pricing everything again gives, and
// must save work that is counted here.
#include "../src/pollux_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "../src/allocation_plan.hpp"
#include "../src/memory_bound_types.hpp"
#include "../src/pollux_workers.hpp"
#include "goodput_test_world.hpp"
#include "pollux_search_testing.hpp"
#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/pollux_policy.hpp"

namespace vnsim {
namespace {

using testing::job;
using testing::World;
using testing_pollux::MixedJobs;
using testing_pollux::same_rows;
using testing_pollux::TwinSearches;

// The fitness of `ind` with every row priced again.
double fresh_fitness(pollux::Search& search, const pollux::Individual& ind) {
  pollux::Individual copy = ind;
  for (pollux::Row& r : copy.rows) r.scored = false;
  return search.fitness(copy);
}

TEST(PolluxSearch, ScoredRowsGiveTheFitnessOfPricingEveryRowAgain) {
  // 12 jobs of three models on 4 nodes x 4 T4, half of them running on
  // two nodes each. 2,000 children from crossover, mutation and repair:
  // each child's fitness, pricing only the rows it changed, equals the
  // fitness of pricing every row again, to the bit; most rows are not
  // priced again.
  World w(4);
  std::vector<JobSpec> specs;
  const char* models[] = {"cifar10", "imagenet", "yolov3"};
  for (int i = 0; i < 12; ++i) specs.push_back(job("j" + std::to_string(i), models[i % 3], 128, 100000));
  GoodputEstimator estimator;
  estimator.use_topology(w.topology);
  estimator.rings_on_any_gpu_type(true);
  PolluxParams params;
  Mt19937_64Blocks rng(7);
  pollux::GoodputTables tables;
  tables.begin_round(w.topology, estimator);
  pollux::Search search(params, estimator, w.cluster, rng, tables);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    pollux::Search::Job j{i, &specs[i], 1000.0 * static_cast<double>(i), 0, 0.5, i % 2 == 0, pollux::Row{},
                          16};
    j.base_goodput = estimator.best(specs[i], "T4", j.progress, 1, 1).goodput;
    ASSERT_GT(j.base_goodput, 0);
    if (j.running)  // two GPUs on each of two nodes
      j.current =
          pollux::Row::from({{static_cast<NodeId>(i / 2 % 4), 2}, {static_cast<NodeId>((i / 2 + 1) % 4), 2}});
    search.jobs.push_back(j);
  }
  search.prepare();
  std::vector<pollux::Individual> pool(8);
  for (pollux::Individual& ind : pool) {
    for (const pollux::Search::Job& j : search.jobs) ind.rows.push_back(j.current);
    search.give_one_free_gpu_each(ind, w.cluster);
    search.mutate(ind);
    search.repair(ind);
    search.fitness(ind);
  }
  const long priced_before = search.rows_priced();
  const long scored_before = search.rows_scored();
  pollux::Individual child;
  for (int k = 0; k < 2000; ++k) {
    const pollux::Individual& a = search.tournament(pool);
    const pollux::Individual& b = search.tournament(pool);
    search.crossover(a, b, child);
    search.mutate(child);
    search.repair(child);
    const double cached = search.fitness(child);
    ASSERT_EQ(cached, fresh_fitness(search, child)) << "child " << k;
    pool[static_cast<std::size_t>(k) % pool.size()] = child;
  }
  // The fresh pricings above count too: subtract them (every row, once per child).
  const long scored = search.rows_scored() - scored_before - 2000 * 12;
  const long priced = search.rows_priced() - priced_before - 2000 * 12;
  EXPECT_EQ(scored, 2000 * 12);
  EXPECT_GT(priced, 0);
  EXPECT_LT(priced, scored / 2);
  std::cout << "children priced " << priced << " of " << scored << " rows\n";
}

// Pollux's repair as its steps read (one distributed job per node, the
// node and GPU caps, node capacity in job order, then the rows compacted),
// one pass per step: what Search::repair, which folds them into fewer
// passes, must leave, node order included.
void reference_repair(const pollux::Search& search, pollux::Individual& ind) {
  std::vector<bool> claimed(search.capacity().size(), false);
  std::vector<int> used(search.capacity().size(), 0);
  for (std::size_t j = 0; j < ind.rows.size(); ++j) {
    pollux::Row& r = ind.rows[j];
    bool changed = false;
    if (r.n > 1) {
      for (int i = 0; i < r.n;)
        if (claimed[r.node[i]]) {
          r.drop(i);
          changed = true;
        } else {
          ++i;
        }
      for (int i = 0; i < r.n; ++i) claimed[r.node[i]] = true;
    }
    while (r.n > search.max_nodes()) {
      r.drop(static_cast<int>(std::min_element(r.count.begin(), r.count.begin() + r.n) - r.count.begin()));
      changed = true;
    }
    for (int over = r.gpus() - search.jobs[j].max_gpus; over > 0;) {
      const int i = r.n - 1;
      const int cut = std::min<int>(over, r.count[i]);
      r.count[i] = static_cast<std::uint8_t>(r.count[i] - cut);
      over -= cut;
      r.compact();
      changed = true;
    }
    for (int i = 0; i < r.n; ++i) {
      const int room = search.capacity()[r.node[i]] - used[r.node[i]];
      if (room < r.count[i]) {
        r.count[i] = static_cast<std::uint8_t>(room);
        changed = true;
      }
      used[r.node[i]] += r.count[i];
    }
    if (r.compact() || changed) r.scored = false;
  }
}

// Pollux's fitness with p = -1 as its formula reads: every row priced, a
// running job's speedup times its restart factor whenever its row is not
// its current allocation.
double reference_fitness(pollux::Search& search, const pollux::Individual& ind) {
  double sum = 0;
  for (std::size_t j = 0; j < ind.rows.size(); ++j) {
    const pollux::Row& r = ind.rows[j];
    double s = r.n > 0 ? search.speedup(j, r.n, r.gpus(), search.row_type(r)) : 0;
    if (search.jobs[j].running && r.n > 0 && s > 0 && !r.same_as(search.jobs[j].current))
      s *= search.jobs[j].restart_factor;
    sum += 1.0 / (s + pollux::kSpeedupFloor);
  }
  return std::pow(sum / static_cast<double>(ind.rows.size()), -1.0);
}

TEST(PolluxSearch, RepairAndFitnessInFewerStepsLeaveWhatTheirPublishedStepsLeave) {
  // 24 jobs, each running on up to 4 of 4 nodes x 4 T4 (so rows overlap
  // and overfill nodes), children of crossover and mutation: Search::repair
  // leaves every row, its node order and its scored flag as the published
  // steps run one after the other leave them, and each child's fitness is
  // the formula's, to the bit. Rows are often cut: a repair that skipped a
  // node swapped into a dropped one's slot would differ, and so would a
  // fitness that took a row with the current GPU count for the current row.
  World w(4);
  std::vector<JobSpec> specs;
  for (int i = 0; i < 24; ++i) specs.push_back(job("j" + std::to_string(i), "cifar10", 128, 100000));
  GoodputEstimator estimator;
  estimator.use_topology(w.topology);
  estimator.rings_on_any_gpu_type(true);
  PolluxParams params;
  Mt19937_64Blocks rng(11);
  pollux::GoodputTables tables;
  tables.begin_round(w.topology, estimator);
  pollux::Search search(params, estimator, w.cluster, rng, tables);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    pollux::Search::Job j{i, &specs[i], 0, 1, 0.5, true, pollux::Row{}, 6};
    std::vector<std::pair<NodeId, int>> row;
    for (std::size_t k = 0; k < 1 + i % 4; ++k)
      row.emplace_back(static_cast<NodeId>((i + k) % 4), 1 + (i + k) % 3);
    j.current = pollux::Row::from(row);
    search.jobs.push_back(j);
  }
  search.prepare();
  std::vector<pollux::Individual> pool(6);
  for (pollux::Individual& ind : pool) {
    for (const pollux::Search::Job& j : search.jobs) ind.rows.push_back(j.current);
    search.mutate(ind);
    search.fitness(ind);
  }
  int rows_cut = 0;
  pollux::Individual child;
  for (int k = 0; k < 3000; ++k) {
    const pollux::Individual& a = search.tournament(pool);
    const pollux::Individual& b = search.tournament(pool);
    search.crossover(a, b, child);
    search.mutate(child);
    for (pollux::Row& r : child.rows) r.scored = true;  // so that a repair's change shows
    pollux::Individual expected = child;
    reference_repair(search, expected);
    search.repair(child);
    ASSERT_TRUE(same_rows(child, expected)) << "child " << k;
    for (const pollux::Row& r : child.rows) rows_cut += r.scored ? 0 : 1;
    ASSERT_EQ(fresh_fitness(search, child), reference_fitness(search, child)) << "child " << k;
    for (pollux::Row& r : child.rows) r.scored = false;  // its terms were not its own
    search.fitness(child);
    pool[static_cast<std::size_t>(k) % pool.size()] = child;
  }
  EXPECT_GT(rows_cut, 3000);  // the repairs had work to do
  std::cout << "rows changed by repair: " << rows_cut << "\n";
}

// Breeds 3,000 children on one search and runs crossover, mutation,
// repair and fitness one after the other on its twin (generators of one
// seed, the same parents in `pools`): every child (rows, node order,
// scored flags, fitness to the bit), the counts and the generators' next
// draws must be the same. `replace`: a child replaces a parent. Returns
// the one-node rows cut to their cap by the stepped repairs; `on_child`
// sees each stepped child.
int expect_bred_children_are_stepped(pollux::Search& bred, Mt19937_64Blocks& rng_bred,
                                     pollux::Search& stepped, Mt19937_64Blocks& rng_stepped,
                                     std::vector<pollux::Individual>* pools, bool replace,
                                     const std::function<void(const pollux::Individual&)>& on_child) {
  pollux::Individual child_bred;
  pollux::Individual child_stepped;
  int one_node_cut = 0;
  for (int k = 0; k < 3000; ++k) {
    const pollux::Individual& a = bred.tournament(pools[0]);
    const pollux::Individual& b = bred.tournament(pools[0]);
    const double fitness = bred.breed(a, b, child_bred);
    const pollux::Individual& c = stepped.tournament(pools[1]);
    const pollux::Individual& d = stepped.tournament(pools[1]);
    stepped.crossover(c, d, child_stepped);
    stepped.mutate(child_stepped);
    for (std::size_t j = 0; j < child_stepped.rows.size(); ++j)
      one_node_cut +=
          child_stepped.rows[j].n == 1 && child_stepped.rows[j].count[0] > stepped.jobs[j].max_gpus;
    stepped.repair(child_stepped);
    stepped.fitness(child_stepped);
    on_child(child_stepped);
    EXPECT_TRUE(same_rows(child_bred, child_stepped)) << "child " << k;
    EXPECT_EQ(fitness, child_stepped.fitness) << "child " << k;
    EXPECT_EQ(child_bred.fitness, child_stepped.fitness) << "child " << k;
    if (::testing::Test::HasFailure()) break;
    if (!replace) continue;
    pools[0][static_cast<std::size_t>(k) % pools[0].size()] = child_bred;
    pools[1][static_cast<std::size_t>(k) % pools[1].size()] = child_stepped;
  }
  EXPECT_EQ(rng_bred(), rng_stepped());
  EXPECT_EQ(bred.rows_scored(), stepped.rows_scored());
  EXPECT_EQ(bred.rows_priced(), stepped.rows_priced());
  return one_node_cut;
}

TEST(PolluxSearch, ABredChildIsWhatCrossoverMutationRepairAndFitnessLeave) {
  // Search::breed does the four steps in one pass over the rows. The jobs
  // run on 0 to 4 of 4 nodes x 4 T4 with caps of 1 to 5 GPUs and 3 nodes,
  // so repairs drop claimed nodes, cut rows to the caps and to the nodes'
  // room.
  TwinSearches twins(5);
  const int one_node_cut =
      expect_bred_children_are_stepped(twins.one, twins.rng_one, twins.other, twins.rng_other, twins.pools,
                                       true, [](const pollux::Individual&) {});
  EXPECT_GT(one_node_cut, 100);  // one-node rows over their cap were cut
}

TEST(PolluxSearch, AKeptRowThatLosesAFullNodeThenAClaimedOneEndsInTheOrderOfTwoPasses) {
  // breed() repairs a repaired parent's row, kept or made sparser, in one
  // pass over its nodes while none is dropped, then as the claims and the
  // capacity pass would go on. On 16 nodes x 4 T4, parent A runs job 0 on
  // all of node 0 and job 1 on nodes 1 and 2; parent B runs job 2 on nodes
  // 0, 1, 5 and 6. A child of A's jobs 0 and 1 and B's job 2 keeps none of
  // B's first two nodes: node 1 is claimed, so the claims leave (0, 6, 5);
  // node 0 is full, so the capacity pass leaves (5, 6). One pass over the
  // nodes that dropped node 0 first would leave (6, 5).
  MixedJobs mixed(16);
  mixed.params.max_nodes_per_job = 8;
  Mt19937_64Blocks rng_bred(21);
  Mt19937_64Blocks rng_stepped(21);
  pollux::Search bred(mixed.params, mixed.estimator, mixed.w.cluster, rng_bred, mixed.tables);
  pollux::Search stepped(mixed.params, mixed.estimator, mixed.w.cluster, rng_stepped, mixed.tables);
  std::vector<pollux::Individual> pools[2];
  for (pollux::Search* search : {&bred, &stepped}) {
    for (std::size_t i = 0; i < 3; ++i)
      search->jobs.push_back(pollux::Search::Job{i, &mixed.specs[i], 0, 1, 0.5, false, pollux::Row{}, 8});
    search->prepare();
    search->price_current_rows();
    std::vector<pollux::Individual>& pool = pools[search == &bred ? 0 : 1];
    pool.resize(2);
    pool[0].rows = {pollux::Row::from({{0, 4}}), pollux::Row::from({{1, 2}, {2, 2}}), pollux::Row{}};
    pool[1].rows = {pollux::Row{}, pollux::Row{}, pollux::Row::from({{0, 1}, {1, 1}, {5, 1}, {6, 1}})};
    for (pollux::Individual& parent : pool) {
      search->repair(parent);
      search->fitness(parent);
    }
  }
  int in_two_pass_order = 0;
  expect_bred_children_are_stepped(bred, rng_bred, stepped, rng_stepped, pools, false,
                                   [&in_two_pass_order](const pollux::Individual& child) {
                                     const pollux::Row& r = child.rows[2];
                                     in_two_pass_order += r.n == 2 && r.node[0] == 5 && r.node[1] == 6;
                                   });
  EXPECT_GT(in_two_pass_order, 50);
}

TEST(PolluxSearch, AChildLeftAtALosingPartialSumWouldHaveLostAndTakesTheSameDraws) {
  // evolve() passes breed() the population-th best fitness of the parents
  // and the children bred before: a child whose partial sum of terms
  // already gives no more than that is left there, with its remaining
  // draws taken. Two searches of the same seed breed 3,000 children, one
  // with a bar (the median fitness of the pool), one without: a child left
  // unfinished (fitness -infinity) has a whole fitness of at most the bar;
  // every other child has the same rows and fitness to the bit; the
  // generators stay in step (the next draw after each child is the same),
  // and over a tenth of the children are left unfinished.
  TwinSearches twins(9);  // `one` breeds with the bar, `other` without
  std::vector<pollux::Individual>& pool = twins.pools[1];
  pollux::Individual child_cut;
  pollux::Individual child_whole;
  int left = 0;
  for (int k = 0; k < 3000; ++k) {
    std::vector<double> fitness;
    for (const pollux::Individual& ind : pool) fitness.push_back(ind.fitness);
    std::nth_element(fitness.begin(), fitness.begin() + static_cast<std::ptrdiff_t>(fitness.size() / 2),
                     fitness.end());
    const double bar = fitness[fitness.size() / 2];
    const pollux::Individual& a = twins.other.tournament(pool);
    const pollux::Individual& b = twins.other.tournament(pool);
    ASSERT_EQ(&twins.one.tournament(pool), &a);
    ASSERT_EQ(&twins.one.tournament(pool), &b);
    const double f_cut = twins.one.breed(a, b, child_cut, bar);
    const double f_whole = twins.other.breed(a, b, child_whole);
    if (f_cut == -std::numeric_limits<double>::infinity()) {
      ++left;
      ASSERT_LE(f_whole, bar) << "child " << k;
      EXPECT_FALSE(child_cut.repaired);
    } else {
      ASSERT_EQ(f_cut, f_whole) << "child " << k;
      ASSERT_TRUE(same_rows(child_cut, child_whole)) << "child " << k;
    }
    ASSERT_EQ(twins.rng_one(), twins.rng_other()) << "child " << k;
    pool[static_cast<std::size_t>(k) % pool.size()] = child_whole;
  }
  EXPECT_GT(left, 300);
  EXPECT_LT(twins.one.rows_repaired(), twins.other.rows_repaired());
}

// evolve() on `lanes` lanes (1: without workers) from 36 parents of
// MixedJobs' jobs, seed 11, 100 generations: the final population, and
// the generator's next draw.
struct Evolved {
  std::vector<pollux::Individual> pop;
  std::uint64_t next_draw = 0;
  long rows_priced = 0;
};
Evolved evolve_on_lanes(int lanes) {
  MixedJobs mixed;
  mixed.params.generations = 100;
  mixed.params.patience = 0;
  mixed.params.max_row_evaluations = 1e12;
  Mt19937_64Blocks rng(11);
  pollux::Search search(mixed.params, mixed.estimator, mixed.w.cluster, rng, mixed.tables);
  mixed.fill(search);
  Evolved out;
  for (int k = 0; k < 6; ++k)
    for (pollux::Individual& ind : MixedJobs::parents(search)) out.pop.push_back(std::move(ind));
  std::vector<pollux::Individual> children(out.pop.size());
  pollux::SearchWorkers workers(lanes, false);  // every generation on the lanes
  if (lanes > 1) search.use_workers(&workers, 0);
  EXPECT_EQ(search.evolve(out.pop, children), 100);
  out.next_draw = rng();
  out.rows_priced = search.rows_priced();
  return out;
}

TEST(PolluxSearch, EvolveOnTwoOrThreeLanesKeepsTheSurvivorsAndDrawsOfOneLane) {
  // 100 generations of 36 children (3,600 children) on 1, 2 and 3 lanes:
  // the same final population (rows, node order, scored flags, fitness to
  // the bit, order) and the generator in the same place. Every draw stays
  // on the calling thread in the one-lane order; only which lane breeds a
  // child, and how early a losing child is left, change.
  const Evolved one = evolve_on_lanes(1);
  for (int lanes : {2, 3}) {
    const Evolved many = evolve_on_lanes(lanes);
    ASSERT_EQ(many.pop.size(), one.pop.size());
    for (std::size_t i = 0; i < one.pop.size(); ++i) {
      EXPECT_TRUE(same_rows(many.pop[i], one.pop[i])) << lanes << " lanes, individual " << i;
      EXPECT_EQ(many.pop[i].fitness, one.pop[i].fitness) << lanes << " lanes, individual " << i;
    }
    EXPECT_EQ(many.next_draw, one.next_draw) << lanes << " lanes";
    EXPECT_GT(many.rows_priced, 0);
  }
  EXPECT_GT(one.pop.front().fitness, one.pop.back().fitness);  // a search that ranks, not a tie
}

TEST(PolluxSearch, ARepairedChildStaysAsItIsWhenRepairedAgainInAnyOrderWithRowsDropped) {
  // What lets PolluxPolicy::decide skip repairing last round's population:
  // 24 jobs on 4 nodes x 4 T4 (at most 3 nodes each, caps of 1-5 GPUs,
  // most running on up to 4 nodes, so mutation and crossover overfill
  // nodes and overlap multi-node rows). Each of 1,500 bred children,
  // repaired again in three other job orders with a fifth of its rows
  // dropped, two queued jobs added and some caps raised, keeps every row
  // as it is.
  MixedJobs mixed;
  Mt19937_64Blocks rng(11);
  pollux::Search search(mixed.params, mixed.estimator, mixed.w.cluster, rng, mixed.tables);
  mixed.fill(search);
  // Three other orders of the jobs, each without a fifth of them and with
  // two new queued jobs (empty rows): column[j] is the first search's.
  std::vector<std::vector<std::ptrdiff_t>> columns;
  std::vector<std::unique_ptr<pollux::Search>> again;
  std::mt19937 shuffle(5);
  for (int o = 0; o < 3; ++o) {
    std::vector<std::ptrdiff_t> column;
    for (std::size_t j = 0; j < 24; ++j)
      if ((j + static_cast<std::size_t>(o)) % 5 != 0) column.push_back(static_cast<std::ptrdiff_t>(j));
    column.push_back(-1);
    column.push_back(-1);
    std::shuffle(column.begin(), column.end(), shuffle);
    auto s =
        std::make_unique<pollux::Search>(mixed.params, mixed.estimator, mixed.w.cluster, rng, mixed.tables);
    std::size_t added = 24;
    for (std::ptrdiff_t c : column) {
      if (c >= 0) {
        s->jobs.push_back(search.jobs[static_cast<std::size_t>(c)]);
        s->jobs.back().max_gpus += static_cast<int>(c % 2);  // a raised cap
      } else {
        s->jobs.push_back(
            pollux::Search::Job{added, &mixed.specs[added], 0, 1, 0.5, false, pollux::Row{}, 4});
        ++added;
      }
    }
    s->prepare();
    columns.push_back(std::move(column));
    again.push_back(std::move(s));
  }
  std::vector<pollux::Individual> pool = MixedJobs::parents(search);
  pollux::Individual child;
  long multi_node_rows = 0;
  for (int k = 0; k < 1500; ++k) {
    const pollux::Individual& a = search.tournament(pool);
    const pollux::Individual& b = search.tournament(pool);
    search.breed(a, b, child);
    ASSERT_TRUE(child.repaired);
    for (std::size_t o = 0; o < again.size(); ++o) {
      pollux::Individual remapped;
      for (std::ptrdiff_t c : columns[o])
        remapped.rows.push_back(c < 0 ? pollux::Row{} : child.rows[static_cast<std::size_t>(c)]);
      pollux::Individual repaired = remapped;
      again[o]->repair(repaired);
      ASSERT_TRUE(same_rows(repaired, remapped)) << "child " << k << ", order " << o;
    }
    for (const pollux::Row& r : child.rows) multi_node_rows += r.n > 1;
    pool[static_cast<std::size_t>(k) % pool.size()] = child;
  }
  EXPECT_GT(multi_node_rows, 300);  // the claims were exercised
  // An individual mutated after its repair is no longer known repaired.
  search.mutate(child);
  EXPECT_FALSE(child.repaired);
}

TEST(PolluxSearch, ADrawComparedAsAnIntegerIsTheSameComparisonAsItsDouble) {
  // Mutation compares draw53() with below53(k) where it compared
  // uniform01() with k: the same answer for every draw. Checked at the
  // integers around each threshold (where a floor instead of a ceiling, or
  // an off-by-one, would differ), at both ends, and on 100,000 draws.
  for (const double k : {0.0, 0.1, 0.2, 0.3, 0.5, 1.0 / 3, 0.75, 1.0}) {
    const std::uint64_t t = pollux::below53(k);
    for (std::uint64_t m : {t - 2, t - 1, t, t + 1, t + 2, std::uint64_t{0}, (std::uint64_t{1} << 53) - 1}) {
      if (m >= (std::uint64_t{1} << 53)) continue;  // not a draw53() (t - 2 wrapped, t + 2 past the top)
      EXPECT_EQ(static_cast<double>(m) * 0x1.0p-53 < k, m < t) << "k " << k << " m " << m;
    }
  }
  Mt19937_64Blocks as_double(7), as_integer(7);
  for (int i = 0; i < 100000; ++i) {
    const double u = pollux::uniform01(as_double);
    const std::uint64_t m = pollux::draw53(as_integer);
    for (const double k : {0.1, 0.2, 0.3, 0.5}) ASSERT_EQ(u < k, m < pollux::below53(k));
  }
}

TEST(PolluxSearch, GoodputTablesAreKeptPerModelAndEpochOnOneTopology) {
  World w(1);
  World other(1);
  GoodputEstimator estimator;
  pollux::GoodputTables tables;
  tables.begin_round(w.topology, estimator);
  const pollux::TableKey epoch0{"cifar10", 0, 0, false, 0};
  const pollux::TableKey epoch1{"cifar10", 0, 1, false, 0};
  const pollux::TableKey at_progress{"cifar10", 0, 0, true, 12.5};
  tables.cells(epoch0).assign(4, 2.0);
  tables.cells(at_progress).assign(4, 3.0);
  EXPECT_TRUE(tables.cells(epoch1).empty());
  tables.forget_others();
  EXPECT_EQ(tables.size(), 3u);
  // A later round that asks for epoch 1 only: epoch 0's table stays (a later
  // job passes through epoch 0 too), the exact-progress one goes.
  tables.begin_round(w.topology, estimator);
  tables.cells(epoch1);
  tables.forget_others();
  EXPECT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables.cells(epoch0), std::vector<double>(4, 2.0));
  EXPECT_TRUE(tables.cells(at_progress).empty());
  // Another topology prices everything again.
  tables.begin_round(other.topology, estimator);
  EXPECT_TRUE(tables.cells(epoch0).empty());
}

TEST(Pollux, ASearchOnUnchangedEpochsReadsItsGoodputFromTheTables) {
  // Six imagenet jobs (an epoch is 6,406 progress units, hours here) on 4
  // nodes x 4 T4, searched in round 0 and again in round 60
  // (max_skipped_rounds 0) on the same topology. Round 60's search reads
  // every speedup from the table round 0 filled: it asks the estimator only
  // for each job's base goodput and its batch in the best allocation, at
  // most 3 per job, where round 0 asked for every allocation its search
  // tried.
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 6; ++i) jobs.push_back(job("j" + std::to_string(i), "imagenet", 256, 1000000));
  PolluxParams params;
  params.max_skipped_rounds = 0;
  params.patience = 0;  // all 100 generations, both rounds
  PolluxPolicy p(params);
  World w(4);
  const long before = p.estimator().goodput_queries();
  const std::vector<Decision> first = p.decide(w.input(0, jobs));
  const long round0 = p.estimator().goodput_queries() - before;
  SchedulerInput later;
  later.now_s = 60;
  later.view = &w.view;
  for (const Decision& d : first) {
    const auto* s = std::get_if<StartJob>(&d);
    if (s == nullptr) continue;  // its batch, set at the start
    w.view.allocate(s->placement.gpus, s->job);
    later.running.push_back(RunningJob{s->job, &jobs[s->job], s->placement, 0, 60.0, -1});
  }
  ASSERT_EQ(later.running.size(), 6u);
  const long before60 = p.estimator().goodput_queries();
  p.decide(later);
  EXPECT_EQ(p.searches(), 2);
  const long round60 = p.estimator().goodput_queries() - before60;
  EXPECT_LE(round60, 3 * 6);
  EXPECT_GT(round0, round60);
  std::cout << "goodput queries: round 0 " << round0 << ", round 60 " << round60 << "\n";
}

}  // namespace
}  // namespace vnsim
