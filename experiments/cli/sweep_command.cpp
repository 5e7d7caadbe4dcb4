// `vnsim sweep CONFIG`: expands an experiment config and runs every run as a
// separate `vnsim replay` process, locally or sharded over MPI ranks.
#include "sweep_command.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "args.hpp"
#include "sweep_mpi.hpp"
#include "sweep_progress.hpp"
#include "trace_options.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/sweep/experiment_config.hpp"
#include "vnsim/sweep/results_table.hpp"
#include "vnsim/sweep/run_executor.hpp"

namespace vnsim::cli {
namespace {

namespace fs = std::filesystem;
using sweep::RunSpec;

// Exit code when every run was attempted but some failed: distinct from input
// errors (2) so scripts can tell "bad config" from "some runs failed".
constexpr int kSomeRunsFailed = 3;

void print_dry_run(const std::vector<RunSpec>& runs, const std::string& out_dir) {
  std::printf("run_index\trun_id\tcluster\ttrace\tpolicy\tmacro_iterations\tseed\tcommand\n");
  const std::string exe = sweep::self_executable();
  for (const auto& r : runs) {
    std::string command = exe;
    for (const auto& a : r.replay_args(sweep::run_dir(out_dir, r))) command += " " + a;
    std::printf("%zu\t%s\t%s\t%s\t%s\t%s\t%llu\t%s\n", r.index, r.id.c_str(), r.cluster.name.c_str(),
                r.trace.label.c_str(), r.policy.label.c_str(),
                r.macro_iterations > 0 ? std::to_string(r.macro_iterations).c_str() : "default",
                static_cast<unsigned long long>(r.seed), command.c_str());
  }
  std::printf("# %zu runs\n", runs.size());
}

}  // namespace

const char* sweep_usage() {
  return "vnsim sweep CONFIG.json [--out DIR] [--jobs N] [--run-timeout S] [--dry-run] [--mpi] [--quiet]  "
         "(docs/EXPERIMENTS.md)\n";
}

int run_sweep_command(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  const std::vector<std::string> positionals = take_positionals(argv, {"--out", "--jobs", "--run-timeout"});
  if (positionals.size() != 1)
    throw InputError("sweep: expected one CONFIG file, usage: " + std::string(sweep_usage()));
  Args args(argv, {"--out", "--jobs", "--run-timeout"}, {"--dry-run", "--mpi", "--quiet"});
  const sweep::ExperimentConfig config = sweep::load_experiment_config(positionals[0]);
  const std::vector<RunSpec> runs = sweep::expand_runs(config);
  const std::string out_dir = args.get_or("--out", (fs::path("sweeps") / config.name).string());
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto parallel =
      static_cast<unsigned>(parse_integer("--jobs", args.get_or("--jobs", std::to_string(cores)), 1));
  const std::optional<std::string> timeout_flag = args.get("--run-timeout");
  const double run_timeout_s = timeout_flag
                                   ? static_cast<double>(parse_integer("--run-timeout", *timeout_flag, 0))
                                   : config.run_timeout_s;
  if (args.has("--dry-run")) {
    print_dry_run(runs, out_dir);
    return 0;
  }

  std::unique_ptr<MpiSession> mpi;
  if (args.has("--mpi")) mpi = std::make_unique<MpiSession>();
  const std::size_t rank = mpi ? static_cast<std::size_t>(mpi->rank()) : 0;
  const std::size_t ranks = mpi ? static_cast<std::size_t>(mpi->size()) : 1;
  const bool quiet = args.has("--quiet");
  try {
    fs::create_directories(fs::path(out_dir) / "runs");
    if (rank == 0)
      fs::copy_file(positionals[0], fs::path(out_dir) / "config.json", fs::copy_options::overwrite_existing);
    // Round-robin sharding: run i on rank i % N, so ranks get similar mixes of axis values.
    std::vector<const RunSpec*> mine;
    for (const auto& r : runs)
      if (r.index % ranks == rank) mine.push_back(&r);

    SweepProgress bar(!quiet && rank == 0);
    sweep::ExecutorOptions options;
    options.vnsim_exe = sweep::self_executable();
    options.out_dir = out_dir;
    options.parallel = parallel;
    options.run_timeout_s = run_timeout_s;
    options.progress = [&bar](std::size_t done, std::size_t total) { bar.update(done, total); };
    const sweep::ExecutorTally tally = sweep::execute_runs(mine, options);
    bar.finish();

    IndexedRows rows;
    for (const RunSpec* r : mine) rows.emplace_back(r->index, sweep::results_row(*r, out_dir));
    if (mpi) rows = mpi->gather_to_root(rows);
    const std::size_t ran = mpi ? mpi->sum(tally.ran) : tally.ran;
    const std::size_t skipped = mpi ? mpi->sum(tally.skipped) : tally.skipped;
    const std::size_t failed = mpi ? mpi->sum(tally.failed) : tally.failed;
    if (rank == 0) {
      std::sort(rows.begin(), rows.end());
      std::vector<std::string> lines;
      for (auto& row : rows) lines.push_back(std::move(row.second));
      const std::string table = (fs::path(out_dir) / "results.csv").string();
      sweep::write_results_csv(table, lines);
      if (!quiet)
        std::printf(
            "vnsim sweep %s: %zu runs on %zu rank(s): %zu ran, %zu skipped (done before), %zu failed\n"
            "results: %s\n",
            config.name.c_str(), runs.size(), ranks, ran, skipped, failed, table.c_str());
      if (failed > 0)
        std::fprintf(stderr, "vnsim sweep: %zu run(s) failed; see the error column of %s\n", failed,
                     table.c_str());
    }
    return failed > 0 ? kSomeRunsFailed : 0;
  } catch (const std::exception& e) {
    if (!mpi) throw;
    // Other ranks would wait forever in the gather: stop the whole job.
    std::fprintf(stderr, "vnsim sweep (rank %zu): error: %s\n", rank, e.what());
    mpi->abort(2);
  }
}

}  // namespace vnsim::cli
