// Same inputs, same output, byte for byte, across processes: the test runs
// this very binary twice, each time replaying a small contended workload
// and dumping every record with exact (hex) floats, and compares the dumps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim_test_support.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

constexpr const char* kDumpEnv = "VNSIM_SIM_DETERMINISM_DUMP";

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

// Not a check by itself: the worker half of ReplayIsIdenticalAcrossProcesses.
TEST(Determinism, DumpContendedReplay) {
  const char* out = std::getenv(kDumpEnv);
  if (out == nullptr) GTEST_SKIP() << "worker for ReplayIsIdenticalAcrossProcesses";
  Cluster cluster(testing::test_cluster("sim-2x2x4-os2"));
  const ModelParams& model = testing::most_communicating_model();
  std::vector<JobSpec> jobs;
  std::map<JobIndex, std::vector<GpuId>> plan;
  for (int i = 0; i < 12; ++i) {
    const bool multi = i % 3 != 2;
    jobs.push_back(testing::make_job("j" + std::to_string(i), 0.01 * i, model, multi ? 8 : 2, 20 + 7 * i));
    std::vector<GpuId> on;
    if (multi) {  // one node of each rack, alternating, so rings share uplinks
      const int node = i % 2;
      for (GpuId g : testing::gpu_range(node * 4, 4)) on.push_back(g);
      for (GpuId g : testing::gpu_range(8 + node * 4, 4)) on.push_back(g);
    } else {
      on = {i % 4, (i + 1) % 4};
    }
    plan[i] = on;
  }
  testing::ScriptedPolicy policy(plan);
  ReplayOptions opts;
  opts.macro_iterations = 3;
  const char* env = std::getenv("VNSIM_DET_ENGINE");
  const std::string engine = env != nullptr ? env : "";
  opts.quiet_rings = engine == "quiet";
  opts.fluid_rings = engine.empty() || engine == "fluid";  // fluid rings are the default
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, opts);
  std::ofstream f(out);
  for (const JobRecord& rec : r.jobs) {
    f << rec.id << ' ' << (rec.state == FinalState::Completed ? "completed" : "rejected") << ' '
      << hex(rec.start_s) << ' ' << hex(rec.finish_s) << ' ' << hex(rec.gpu_seconds) << " [" << rec.reason
      << "]";
    for (GpuId g : rec.gpus) f << ' ' << g;
    f << '\n';
  }
  for (const AllocationEvent& e : r.allocations) f << hex(e.time_s) << ' ' << e.job << ' ' << e.taken << '\n';
  f << hex(r.simulated_end_s) << '\n';
}

std::string run_worker(const std::string& path, const std::string& engine = "") {
  // Resolved here: inside the shell, /proc/self/exe would be the shell.
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string real = (engine.empty() ? std::string() : "VNSIM_DET_ENGINE=" + engine + " ") + kDumpEnv +
                           "=" + path + " '" + exe +
                           "' --gtest_filter=Determinism.DumpContendedReplay > /dev/null 2>&1";
  EXPECT_EQ(std::system(real.c_str()), 0) << real;
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::filesystem::remove(path);
  return ss.str();
}

// Two worker processes replay the same inputs with the `engine` options.
void expect_identical_across_processes(const std::string& stem, const std::string& engine) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string base = stem + std::to_string(getpid());
  const std::string a = run_worker((dir / (base + "_a.txt")).string(), engine);
  const std::string b = run_worker((dir / (base + "_b.txt")).string(), engine);
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a.find("completed"), std::string::npos);
  EXPECT_EQ(a, b);
}

TEST(Determinism, ReplayIsIdenticalAcrossProcesses) {
  expect_identical_across_processes("vnsim_sim_det_", "actors");
}

// Quiet rings hand jobs between the controller and their actors whenever
// contention changes; that must not depend on anything but the inputs.
TEST(Determinism, ReplayWithQuietRingsIsIdenticalAcrossProcesses) {
  expect_identical_across_processes("vnsim_sim_detq_", "quiet");
}

// Fluid rings key their links by address, which changes from process to
// process; the rates they get must not.
TEST(Determinism, ReplayWithFluidRingsIsIdenticalAcrossProcesses) {
  expect_identical_across_processes("vnsim_sim_detf_", "fluid");
}

}  // namespace
}  // namespace vnsim
