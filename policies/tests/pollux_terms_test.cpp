// Pollux's fitness terms kept from one search to the next: a row of the
// last search's population keeps its term only while everything the term
// reads of its job is the same (Search::TermInputs), and then the term is
// the one pricing the row again gives, to the bit.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../src/pollux_search.hpp"
#include "goodput_test_world.hpp"
#include "vnsim/policies/pollux_policy.hpp"

namespace vnsim {
namespace {

using testing::job;
using testing::World;

// Rows over 4 nodes x 4 GPUs: empty, on one node, across two or three.
std::vector<pollux::Row> all_kinds_of_rows() {
  std::vector<pollux::Row> rows = {pollux::Row{}};
  for (int node = 0; node < 4; ++node)
    for (int gpus = 1; gpus <= 4; ++gpus) {
      rows.push_back(pollux::Row::from({{static_cast<NodeId>(node), gpus}}));
      rows.push_back(
          pollux::Row::from({{static_cast<NodeId>(node), gpus}, {static_cast<NodeId>((node + 1) % 4), 2}}));
      rows.push_back(pollux::Row::from({{static_cast<NodeId>(node), gpus},
                                        {static_cast<NodeId>((node + 2) % 4), 1},
                                        {static_cast<NodeId>((node + 3) % 4), 4}}));
    }
  return rows;
}

struct Round {
  pollux::Search search;
  Round(const PolluxParams& params, GoodputEstimator& estimator, const World& w, Mt19937_64Blocks& rng,
        pollux::GoodputTables& tables)
      : search(params, estimator, w.cluster, rng, tables) {}
};

TEST(PolluxTerms, AKeptTermIsTheTermOfPricingTheRowAgain) {
  // Round 1 and round 2 of the same eight jobs on 4 nodes x 4 T4; round 2
  // changes one input of each of six of them (the base goodput, the cap on
  // GPUs, the epoch of its table, the restart factor or current row of a
  // running job, whether it runs) and keeps two as they were. For every
  // kind of row: where the job's inputs are the same, round 1's term is
  // round 2's to the bit; the other six jobs each have a row whose term
  // differs, and their inputs must not count as the same.
  World w(4);
  std::vector<JobSpec> specs;
  for (int i = 0; i < 8; ++i) specs.push_back(job("j" + std::to_string(i), "imagenet", 256, 1000000));
  GoodputEstimator estimator;
  estimator.use_topology(w.topology);
  estimator.rings_on_any_gpu_type(true);
  PolluxParams params;
  Mt19937_64Blocks rng(3);
  pollux::GoodputTables tables;
  const pollux::Row on_node_0 = pollux::Row::from({{0, 2}});
  auto fill = [&](pollux::Search& s, bool second) {
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const bool running = i >= 4 && !(second && i == 7);  // job 7 stops running in round 2
      pollux::Search::Job j{i, &specs[i], 0, 0, 0.5, running, running ? on_node_0 : pollux::Row{}, 16};
      if (second && i == 2) j.progress = 7000;  // imagenet's next epoch (6,406 progress units)
      j.base_goodput = estimator.best(specs[i], "T4", j.progress, 1, 1).goodput;
      if (second && i == 0) j.base_goodput *= 1.5;  // another fair share
      if (second && i == 1) j.max_gpus = 4;
      if (second && i == 4) j.restart_factor = 0.6;
      if (second && i == 5) j.current = pollux::Row::from({{1, 2}});
      s.jobs.push_back(j);
    }
    s.prepare();
  };
  tables.begin_round(w.topology, estimator);
  Round first(params, estimator, w, rng, tables);
  fill(first.search, false);
  const std::vector<pollux::Row> rows = all_kinds_of_rows();
  std::vector<std::vector<double>> terms(specs.size());
  std::vector<pollux::Search::TermInputs> inputs;
  for (std::size_t j = 0; j < specs.size(); ++j) {
    inputs.push_back(first.search.term_inputs(j));
    for (pollux::Row r : rows) {
      first.search.price(j, r);
      terms[j].push_back(r.term);
    }
  }
  tables.begin_round(w.topology, estimator);
  Round second(params, estimator, w, rng, tables);
  fill(second.search, true);
  int kept = 0;
  for (std::size_t j = 0; j < specs.size(); ++j) {
    const bool same = second.search.term_inputs(j).same_terms_as(inputs[j]);
    bool any_differs = false;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      pollux::Row r = rows[k];
      second.search.price(j, r);
      if (r.term != terms[j][k]) any_differs = true;
      if (same) {
        ASSERT_EQ(r.term, terms[j][k]) << "job " << j << " row " << k;
      }
    }
    if (j == 3 || j == 6) {
      EXPECT_TRUE(same) << "job " << j;
      ++kept;
    } else {
      EXPECT_TRUE(any_differs) << "job " << j << ": the change reaches no term";
      EXPECT_FALSE(same) << "job " << j;
    }
  }
  EXPECT_EQ(kept, 2);
  // Tables of another topology are another generation: nothing is kept.
  World other(4);
  GoodputEstimator other_estimator;
  other_estimator.use_topology(other.topology);
  other_estimator.rings_on_any_gpu_type(true);
  tables.begin_round(other.topology, other_estimator);
  pollux::Search third(params, other_estimator, other.cluster, rng, tables);
  for (std::size_t i = 0; i < specs.size(); ++i) third.jobs.push_back(second.search.jobs[i]);
  third.prepare();
  EXPECT_FALSE(third.term_inputs(3).same_terms_as(inputs[3]));
}

// 40 queued jobs on 2 nodes x 4 T4 (8 GPUs): most stay queued in every
// individual. Each round searches (max_skipped_rounds 0) for one
// generation after its set-up.
struct QueueRounds {
  std::vector<JobSpec> jobs;
  PolluxPolicy p;
  World w0{2};
  static PolluxParams params() {
    PolluxParams params;
    params.max_skipped_rounds = 0;
    params.patience = 0;
    params.generations = 1;  // set-up and one generation
    return params;
  }
  QueueRounds() : p(params()) {
    for (int i = 0; i < 40; ++i) jobs.push_back(job("j" + std::to_string(i), "cifar10", 128, 1000000, 0));
  }
  void round(double now) { p.decide(w0.input(now, jobs)); }
};

TEST(PolluxTerms, ASecondSearchOnTheSameQueuePricesOnlyWhatChanged) {
  // QueueRounds: round 60 searches again on the same inputs (nothing
  // started), so the 97 individuals of last round's
  // population that seed it keep their rows' terms, and with one
  // generation it prices about what the children change. Pricing the
  // seeds again would cost 97 x 40 = 3,880 rows more.
  QueueRounds q;
  q.round(0);
  const long round0 = q.p.rows_priced();
  q.round(60);  // the same topology: the same goodput tables
  const long round60 = q.p.rows_priced() - round0;
  EXPECT_EQ(q.p.searches(), 2);
  EXPECT_LT(round60, 2000);
  std::cout << "rows priced: round 0 " << round0 << ", round 60 " << round60 << "\n";
}

TEST(PolluxTerms, ASecondSearchRepairsOnlyWhatLastRoundLeftUnrepaired) {
  // QueueRounds: round 60 takes 97 individuals of round 0's final population as they are
  // (repaired then, on the same jobs, nodes and caps), so its set-up
  // repairs at most the seeds made this round; with one generation the
  // round repairs the 100 children's 4,000 rows plus a few seeds, not the
  // 3,960 rows of 99 seeds again.
  QueueRounds q;
  q.round(0);
  const long round0 = q.p.rows_repaired();
  EXPECT_EQ(round0, (99 + 100) * 40);
  q.round(60);
  const long round60 = q.p.rows_repaired() - round0;
  EXPECT_EQ(q.p.searches(), 2);
  EXPECT_GE(round60, 100 * 40);
  EXPECT_LE(round60, 100 * 40 + 3 * 40);
}

}  // namespace
}  // namespace vnsim
