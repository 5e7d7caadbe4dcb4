#pragma once
// `vnexec run --resume RUN_DIR`: what an attempt that died (a rank was
// killed, so the whole MPI job ended) left in measurements.jsonl, so that a
// new attempt continues the run instead of starting over
// (docs/REAL_EXEC.md, "Surviving a killed rank").
#include <map>
#include <string>

#include "vnsim/core/job_record.hpp"

namespace vnsim::real_exec {

struct PriorJob {
  bool submitted = false;
  bool done = false;     // completed or rejected: not run again
  bool running = false;  // held workers when the attempt died: its work since the last checkpoint is lost
  JobRecord record;      // submit, first start, finish, last gpus, reason, restarts, GPU time held
  int last_epoch = -1;   // the resumed attempt numbers its segments after this one
  long long iterations_seen = 0;       // steps reported (the last checkpoint may be behind)
  long long checkpoint_iteration = 0;  // not in the log: the caller reads the job's checkpoint file
  // The last launch's batch and the step it was to end at (an adaptive-batch
  // change re-expresses both; the checkpoint counts steps in that
  // numbering); 0 = no launch logged.
  int global_batch = 0;
  long long total_iterations = 0;
};

struct PriorAttempt {
  std::map<std::string, PriorJob> jobs;  // by job id
  double last_t = 0;                     // the last record's time; the next attempt's clock starts here
  int attempts = 0;                      // attempts that wrote to the log
};

// Reads a (possibly truncated) measurement log. A last line cut off by the
// kill is ignored; any other malformed line is an InputError naming
// file:line and the reason.
PriorAttempt read_prior_attempt(const std::string& measurements_path);

}  // namespace vnsim::real_exec
