// A search row (pollux_search.hpp): its size and node limit, its type, the
// row of a running placement, and fitness() reusing the term of a row it
// priced last for the job.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../src/allocation_plan.hpp"
#include "../src/pollux_search.hpp"
#include "goodput_test_world.hpp"
#include "pollux_search_testing.hpp"
#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

using testing::job;
using testing::World;
using testing_pollux::MixedJobs;
using testing_pollux::same_rows;

TEST(PolluxSearch, ARowIsACacheLineAndANodeOfMoreGpusThanItCountsIsRejected) {
  // A row's GPU counts are 8-bit: a node of 256 GPUs is an input error
  // naming the node, not a count that wraps to 0.
  EXPECT_LE(sizeof(pollux::Row), 64u);
  World w(testing::test_cluster("pcie-t4-1x1x256"));
  std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 1000)};
  PolluxPolicy p;
  try {
    p.decide(w.input(0, jobs));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("256 GPUs"), std::string::npos) << e.what();
  }
}

TEST(PolluxSearch, ARowPricedAgainByFitnessTakesTheTermAndChangesOfPricingIt) {
  // Search::fitness() keeps each job's last priced row and gives an equal
  // row its term. 500 individuals of MixedJobs' 24 jobs, each row one of
  // five (the current row; one node with 1 or 2 GPUs; two nodes; 6 GPUs on
  // 3 nodes, over every job's cap, which pricing empties), so most rows
  // repeat one priced before: the rows, their terms and the fitness to the
  // bit, and the count of rows priced, are those of pricing every row.
  MixedJobs mixed;
  Mt19937_64Blocks rng_kept(3);
  Mt19937_64Blocks rng_fresh(3);
  pollux::Search kept(mixed.params, mixed.estimator, mixed.w.cluster, rng_kept, mixed.tables);
  pollux::Search fresh(mixed.params, mixed.estimator, mixed.w.cluster, rng_fresh, mixed.tables);
  mixed.fill(kept);
  mixed.fill(fresh);
  std::mt19937_64 rng(5);
  int emptied = 0;
  for (int k = 0; k < 500; ++k) {
    pollux::Individual ind;
    for (std::size_t j = 0; j < kept.jobs.size(); ++j) {
      const auto node = static_cast<NodeId>(j % 4);
      const auto next = static_cast<NodeId>((j + 1) % 4);
      const auto after = static_cast<NodeId>((j + 2) % 4);
      const pollux::Row rows[] = {kept.current_row(j), pollux::Row::from({{node, 1}}),
                                  pollux::Row::from({{node, 2}}), pollux::Row::from({{next, 1}, {after, 1}}),
                                  pollux::Row::from({{node, 2}, {next, 2}, {after, 2}})};
      ind.rows.push_back(rows[rng() % 5]);
      ind.rows.back().scored = false;
    }
    pollux::Individual each = ind;
    kept.fitness(ind);
    for (std::size_t j = 0; j < each.rows.size(); ++j) {
      const int n = each.rows[j].n;
      fresh.price(j, each.rows[j]);
      emptied += n > 0 && each.rows[j].n == 0;
    }
    fresh.fitness(each);  // every row scored: the sum of their terms
    ASSERT_TRUE(same_rows(ind, each)) << k;
    for (std::size_t j = 0; j < ind.rows.size(); ++j) ASSERT_EQ(ind.rows[j].term, each.rows[j].term) << k;
    ASSERT_EQ(ind.fitness, each.fitness) << k;
  }
  EXPECT_EQ(kept.rows_priced(), fresh.rows_priced());
  EXPECT_GT(emptied, 1000);
}

TEST(PolluxSearch, ARowOfAPlacementIsTheRowOfItsGpusPerNode) {
  // Row::of_gpus() against Row::from(gpus_per_node()): placements of 1 to
  // 80 GPUs drawn from 625 nodes x 4, in any order, some on more than
  // kMaxRowNodes nodes (both keep the lowest-numbered 16), the buffer
  // reused from one to the next.
  World w(625);
  std::mt19937_64 rng(7);
  std::vector<NodeId> buffer;
  int over_16 = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<GpuId> all(static_cast<std::size_t>(w.cluster.gpu_count()));
    for (std::size_t g = 0; g < all.size(); ++g) all[g] = static_cast<GpuId>(g);
    // Clustered on a few nodes in most trials, spread in the others.
    const std::size_t first = rng() % all.size();
    const std::size_t span = trial % 3 == 0 ? all.size() : 8 + rng() % 120;
    std::vector<GpuId> from(all.begin() + static_cast<std::ptrdiff_t>(first),
                            all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), first + span)));
    std::shuffle(from.begin(), from.end(), rng);
    from.resize(std::min<std::size_t>(from.size(), 1 + rng() % 80));
    const pollux::Row expected = pollux::Row::from(gpus_per_node(w.cluster, from));
    const pollux::Row got = pollux::Row::of_gpus(w.cluster, from, buffer);
    if (gpus_per_node(w.cluster, from).size() > pollux::kMaxRowNodes) ++over_16;
    ASSERT_EQ(got.n, expected.n) << trial;
    for (int i = 0; i < got.n; ++i) {
      ASSERT_EQ(got.node[i], expected.node[i]) << trial;
      ASSERT_EQ(got.count[i], expected.count[i]) << trial;
    }
    EXPECT_FALSE(got.scored);
  }
  EXPECT_GT(over_16, 100);
}

TEST(PolluxSearch, ARowsTypeIsTheLeastMemoryTypeOfItsNodes) {
  // Search::row_type() (a minimum of ranks) against the fold of
  // MemoryBoundTypes::smaller() over the row's nodes in row order, on 16
  // nodes of six types with ties in memory (T4, V100 and P100: 16 GiB;
  // P40 and A10: 24 GiB) and a node of two types, for rows of 0 to 16
  // nodes in any order.
  std::string nodes;
  const char* types[] = {"\"P40\"", "\"T4\"", "\"V100\"", "\"A10\"", "\"P100\"", "\"K80\""};
  for (int i = 0; i < 16; ++i) {
    if (i > 0) nodes += ", ";
    const std::string type = i == 13 ? "\"V100\", \"K80\"" : std::string(types[(i * 5) % 6]);
    nodes += "{\"name\": \"n" + std::to_string(i) + "\", \"gpu_types\": [" + type + "]}";
  }
  World w(
      parse_cluster_spec(R"({"name": "mixed", "defaults": {"intra": {"kind": "pcie", "bandwidth_gbps": 126,
    "latency_us": 1}, "nic": {"bandwidth_gbps": 100, "latency_us": 1}}, "racks": [{"name": "r0", "nodes": [)" +
                             nodes + "]}]}",
                         "mixed"));
  GoodputEstimator estimator;
  estimator.use_topology(w.topology);
  pollux::GoodputTables tables;
  tables.begin_round(w.topology, estimator);
  const MemoryBoundTypes& t = tables.types();
  ASSERT_EQ(t.count(), 6);
  PolluxParams params;
  Mt19937_64Blocks draws(3);
  pollux::Search search(params, estimator, w.cluster, draws, tables);
  std::mt19937_64 rng(11);
  std::vector<int> seen(6, 0);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<std::uint16_t> order(16);
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint16_t>(i);
    std::shuffle(order.begin(), order.end(), rng);
    pollux::Row r;
    r.n = static_cast<std::uint8_t>(trial < 16 ? 1 : rng() % 17);
    for (int i = 0; i < r.n; ++i) {
      r.node[i] = trial < 16 ? static_cast<std::uint16_t>(trial) : order[static_cast<std::size_t>(i)];
      r.count[i] = 1;
    }
    int folded = r.n > 0 ? t.of_node(r.node[0]) : 0;
    for (int i = 1; i < r.n; ++i) folded = t.smaller(folded, t.of_node(r.node[i]));
    ASSERT_EQ(search.row_type(r), folded) << trial;
    ++seen[static_cast<std::size_t>(folded)];
  }
  for (int type = 0; type < 6; ++type) EXPECT_GT(seen[static_cast<std::size_t>(type)], 0) << type;
}

}  // namespace
}  // namespace vnsim
