#pragma once
// Runs each simulation as its own `vnsim replay` process (SimGrid allows one
// engine per process), up to `parallel` at a time. A run whose summary.json
// exists and whose input_key.txt matches its inputs now is skipped; a
// failing run leaves exit_code.txt and error.txt in its directory and the
// others go on. Children get SIGTERM when the sweep dies (kParentPidEnv).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "vnsim/sweep/experiment_config.hpp"

namespace vnsim::sweep {

struct ExecutorOptions {
  std::string vnsim_exe;  // binary that runs `replay`
  std::string out_dir;    // sweep directory; runs go to out_dir/runs/<id>
  // What command.txt writes as "${VNSIM_SHARED}" (display_command.hpp).
  std::string shared_root = default_shared_root();
  unsigned parallel = 1;
  // > 0: a run still going after this many wall-clock seconds is killed and
  // recorded as failed ("timed out" in error.txt), so one slow policy cannot
  // hold up a sweep; a later sweep re-runs it.
  double run_timeout_s = 0;
  // Called after each run ends or is skipped (done counts both).
  std::function<void(std::size_t done, std::size_t total)> progress;
  // Polled between runs: once true, no run starts, the running ones get
  // SIGTERM and are left without exit_code.txt (results.csv: "interrupted").
  std::function<bool()> interrupted;
  // Called with a run id and why a finished run is run again.
  std::function<void(const std::string& run_id, const std::string& why)> rerun_notice;
};

struct ExecutorTally {
  std::size_t ran = 0, skipped = 0, failed = 0, interrupted = 0;
};

// Set in each replay's environment to the sweep's pid (interrupt_watcher.hpp).
inline constexpr const char* kParentPidEnv = "VNSIM_SWEEP_PARENT_PID";

std::string run_dir(const std::string& out_dir, const RunSpec& run);
ExecutorTally execute_runs(const std::vector<const RunSpec*>& runs, const ExecutorOptions& options);

// Path of the running executable (/proc/self/exe).
std::string self_executable();

}  // namespace vnsim::sweep
