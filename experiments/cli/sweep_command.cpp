// `vnsim sweep CONFIG`: expands an experiment config and runs every run as a
// separate `vnsim replay` process, locally or sharded over MPI ranks.
#include "sweep_command.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "args.hpp"
#include "interrupt_watcher.hpp"
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

// The signal that stopped the sweep, 0 while none has.
std::atomic<int> g_interrupt{0};

// An exclusive flock on DIR/.lock, held until the process ends. The kernel
// drops it when the holder dies however it dies, so a lock left by a killed
// sweep never blocks the next one (the file itself stays, harmless).
void lock_sweep_folder(const fs::path& dir) {
  const fs::path path = dir / ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(path.string() + ": cannot open the sweep lock (" + std::strerror(errno) + ")");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    const ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
    std::string pid = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    ::close(fd);
    throw InputError(dir.string() + ": another sweep" + (pid.empty() ? "" : " (pid " + pid + ")") +
                     " is running in this folder; wait for it to end or use another --out");
  }
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0) {
    // The pid is only for the message above; the lock itself holds.
  }
  // fd stays open on purpose: closing it would release the lock.
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

  watch_interrupts([](int signo) { g_interrupt.store(signo); });
  std::unique_ptr<MpiSession> mpi;
  if (args.has("--mpi")) {
    die_with_parent();  // the rank ends when mpirun's launcher does
    mpi = std::make_unique<MpiSession>();
  }
  const std::size_t rank = mpi ? static_cast<std::size_t>(mpi->rank()) : 0;
  const std::size_t ranks = mpi ? static_cast<std::size_t>(mpi->size()) : 1;
  const bool quiet = args.has("--quiet");
  try {
    fs::create_directories(fs::path(out_dir) / "runs");
    if (rank == 0) lock_sweep_folder(out_dir);
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
    options.interrupted = [] { return g_interrupt.load() != 0; };
    options.rerun_notice = [](const std::string& id, const std::string& why) {
      std::fprintf(stderr, "vnsim sweep: re-running %s: %s\n", id.c_str(), why.c_str());
    };
    const sweep::ExecutorTally tally = sweep::execute_runs(mine, options);
    bar.finish();

    IndexedRows rows;
    const int signo = g_interrupt.load();
    const bool interrupted = mpi ? mpi->sum(signo != 0 ? 1 : 0) > 0 : signo != 0;
    for (const RunSpec* r : mine) rows.emplace_back(r->index, sweep::results_row(*r, out_dir, interrupted));
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
      if (interrupted)
        std::fprintf(stderr,
                     "vnsim sweep: interrupted by %s; results.csv holds the %zu finished run(s), the others "
                     "are marked interrupted (run the sweep again to finish them)\n",
                     signal_name(signo != 0 ? signo : SIGINT), ran + skipped - failed);
    }
    if (interrupted) return interrupt_exit_code(signo != 0 ? signo : SIGINT);
    return failed > 0 ? kSomeRunsFailed : 0;
  } catch (const std::exception& e) {
    if (!mpi) throw;
    // Other ranks would wait forever in the gather: stop the whole job.
    std::fprintf(stderr, "vnsim sweep (rank %zu): error: %s\n", rank, e.what());
    mpi->abort(2);
  }
}

}  // namespace vnsim::cli
