// Fluid rings keep each ring's slowest-rank compute time between settles;
// a GPU co-tenant that leaves must make the fluid model see the ring's new
// compute, or the rings beside it keep the speed they had next to it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim_test_support.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// Starts each job on its planned GPUs with its planned share.
class Planned : public Policy {
 public:
  struct Plan {
    std::vector<GpuId> gpus;
    int milli;
  };
  explicit Planned(std::map<JobIndex, Plan> plans) : plans_(std::move(plans)) {}
  std::string name() const override { return "planned"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    std::vector<Decision> out;
    for (const QueuedJob& q : in.queued) {
      const Plan& p = plans_.at(q.index);
      out.push_back(
          StartJob{q.index, spread_virtual_nodes(p.gpus, q.spec->effective_virtual_nodes()), p.milli});
    }
    return out;
  }

 private:
  std::map<JobIndex, Plan> plans_;
};

// Rings a (long) and b on GPUs 0 and 1 (two nodes: they share the nodes'
// links), and c, a one-GPU co-tenant of both on GPU 0, of `c_iterations`
// (0: no c). With `c_at_s` > 0, c is submitted then and there is no a: b
// runs alone, at full speed, until c comes. Returns the finish times of b
// and c and b's start.
struct Times {
  double b_start = 0, b_finish = 0, c_finish = 0;
};
Times run(long long c_iterations, double c_at_s) {
  Cluster cluster(testing::test_cluster("sim-v100-1x2x1"));
  const ModelCatalog& models = ModelCatalog::builtin();
  std::vector<JobSpec> jobs;
  std::map<JobIndex, Planned::Plan> plans;
  if (c_at_s <= 0) {
    jobs.push_back(testing::make_job("a", 0, models.at("cifar10"), 2, 200000));
    plans[0] = {{0, 1}, 400};
  }
  const JobIndex b = jobs.size();
  jobs.push_back(testing::make_job("b", 0, models.at("cifar10"), 2, 4000));
  plans[b] = {{0, 1}, 300};
  if (c_iterations > 0) {
    jobs.push_back(testing::make_job("c", c_at_s, models.at("imagenet"), 1, c_iterations));
    plans[b + 1] = {{0}, 300};
  }
  Planned policy(plans);
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
  for (const JobRecord& j : r.jobs) EXPECT_EQ(j.state, FinalState::Completed) << j.id << ": " << j.reason;
  Times out;
  out.b_start = r.jobs[b].start_s;
  out.b_finish = r.jobs[b].finish_s;
  if (c_iterations > 0) out.c_finish = r.jobs[b + 1].finish_s;
  return out;
}

constexpr const char* kDumpEnv = "VNSIM_FLUID_SHARING_DUMP";
constexpr const char* kCEnv = "VNSIM_FLUID_SHARING_C";
constexpr const char* kCAtEnv = "VNSIM_FLUID_SHARING_C_AT";

// Not a check by itself: the worker half of ACoTenantLeavingReachesTheFluidModel
// (one SimGrid replay per process).
TEST(FluidRingsSharing, DumpReplay) {
  const char* out = std::getenv(kDumpEnv);
  const char* c = std::getenv(kCEnv);
  if (out == nullptr || c == nullptr) GTEST_SKIP() << "worker for ACoTenantLeavingReachesTheFluidModel";
  const char* c_at = std::getenv(kCAtEnv);
  const Times t = run(std::atoll(c), c_at != nullptr ? std::atof(c_at) : 0.0);
  std::ofstream f(out);
  f.precision(17);
  f << t.b_start << ' ' << t.b_finish << ' ' << t.c_finish << '\n';
}

Times run_worker(long long c_iterations, double c_at_s = 0) {
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("fluid_sharing_" + std::to_string(getpid()) + "_" + std::to_string(c_iterations)))
          .string();
  const std::string cmd = std::string(kCEnv) + "=" + std::to_string(c_iterations) + " " + kCAtEnv + "=" +
                          std::to_string(c_at_s) + " " + kDumpEnv + "=" + path + " '" + exe +
                          "' --gtest_filter=FluidRingsSharing.DumpReplay > /dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream f(path);
  Times t;
  f >> t.b_start >> t.b_finish >> t.c_finish;
  std::filesystem::remove(path);
  return t;
}

// b runs at one steady speed next to c (c outlasting b) and at another
// without c. When c leaves at T, b has done (T - s) / (F_with - s) of its
// work and does the rest at the speed without c: b ends at
// T + (1 - (T - s) / (F_with - s)) (F_without - s).
TEST(FluidRingsSharing, ACoTenantLeavingReachesTheFluidModel) {
  const Times with_c = run_worker(1000000);
  const Times without_c = run_worker(0);
  const Times c_leaves = run_worker(300);
  ASSERT_GT(without_c.b_finish, 0);
  ASSERT_GT(with_c.c_finish, with_c.b_finish);
  ASSERT_LT(c_leaves.c_finish, c_leaves.b_finish);
  const double s = c_leaves.b_start;
  const double t = c_leaves.c_finish;
  const double expected =
      t + (1 - (t - s) / (with_c.b_finish - s)) * (without_c.b_finish - without_c.b_start);
  EXPECT_NEAR(c_leaves.b_finish, expected, 1e-6 * expected);
  // The speeds differ enough for the check to tell them apart.
  EXPECT_GT(with_c.b_finish - without_c.b_finish, 1e-3 * expected);
}

// The other way: c arrives while b runs at full speed, alone on its links
// (no contention stretch), so b must slow from then on. Fluid rings keep a
// ring's slowest GPU-sharing speed between settles; the arrival must reach
// it, or b keeps running as if alone.
TEST(FluidRingsSharing, ACoTenantArrivingSlowsARingAlone) {
  const Times alone = run_worker(0, 1.0);
  const Times c_arrives = run_worker(1000000, 1.0);
  ASSERT_GT(alone.b_finish, 1.0);
  ASSERT_GT(c_arrives.c_finish, c_arrives.b_finish);
  EXPECT_GT(c_arrives.b_finish, alone.b_finish * (1 + 1e-3));
}

}  // namespace
}  // namespace vnsim
