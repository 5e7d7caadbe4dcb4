#pragma once
// vnexec's command line. Every rank parses the same argv, so workers know
// the trace, scales and backend without extra messages.
#include <map>
#include <string>
#include <vector>

#include "vnsim/policies/policy.hpp"
#include "vnsim/real_exec/workload.hpp"

namespace vnsim::real_exec::mpi {

struct Options {
  std::string command;  // run | calibrate
  std::string backend = "cpu";
  EmulationScale scale;
  std::string out;
  // SCHED_RR priority of the workers (the run's controller one above it); 0: normal scheduling.
  int realtime = 0;
  // run
  std::string trace, cluster, profile, policy = "fifo";
  std::string noise;  // gradient noise profiles (vnexec calibrate's noise.json); empty = built-in
  PolicyParams policy_params;
  // --vc-quotas FILE|trace: each VC's jobs scheduled within its GPU quota
  // (docs/POLICIES.md, "Virtual-cluster quotas"); empty = none.
  std::string vc_quotas;
  bool vc_borrow = false;  // --vc-borrow on|off
  double time_scale = 1.0;
  long long checkpoint_every = 0;
  std::map<std::string, long long> inject_failure;
  // Timed steps per model of the transport probe at the run's start and end
  // (vnsim/real_exec/transport_probe.hpp); 0: no probe.
  // A step's all-reduce span varies by about 30% (sigma) from step to step
  // on the CPU testbed (docs/VALIDATION.md): the median of 8 steps is then
  // off by about 1.25 sigma / sqrt(8) = 13%, of 32 by about 7%.
  int probe_repetitions = 32;
  std::string resume;  // --resume RUN_DIR: every other setting comes from its run_config.json
  // calibrate
  std::vector<std::string> models;
  int repetitions = 5;
};

// Throws InputError naming the flag and the reason.
Options parse_options(const std::vector<std::string>& argv);
// --resume RUN_DIR: fills the run's settings from RUN_DIR/run_config.json
// (the executed trace, its copies of the spec and profile, policy, scales).
void load_resume_settings(Options& options);
const char* usage();

}  // namespace vnsim::real_exec::mpi
