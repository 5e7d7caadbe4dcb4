// What Pollux's search keeps between children and between rounds: a row's
// fitness term while the row stays, and goodput tables while a job's inputs
// stay. Both must give exactly what pricing everything again gives, and
// must save work that is counted here.
#include "../src/pollux_search.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "goodput_test_world.hpp"
#include "vnsim/policies/pollux_policy.hpp"

namespace vnsim {
namespace {

using testing::job;
using testing::World;

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
