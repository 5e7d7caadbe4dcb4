#pragma once
// JobSpec: one training job as submitted. Trace readers produce these; the
// simulator and the real executor consume them.
#include <cstdint>
#include <optional>
#include <string>

namespace vnsim {

enum class TraceStatus { Unknown, Pass, Killed, Failed };
const char* to_string(TraceStatus s);
TraceStatus trace_status_from_string(const std::string& s);  // throws InputError

// A parameter-server job (docs/TRACES.md, core/parameter_server.hpp): the
// first `servers` GPUs of its placement serve, the others are workers.
struct ParameterServerSpec {
  int servers = 0;  // 0: not a parameter-server job
  bool async = false;
  // Each worker is a straggler with this probability; its compute is then
  // slowed by a factor uniform in [min, max], drawn from `seed` only.
  double straggler_probability = 0;
  double straggler_min_slowdown = 1;
  double straggler_max_slowdown = 1;
  std::uint64_t straggler_seed = 0;
};

struct JobSpec {
  std::string id;
  double submit_s = 0;    // seconds from the trace's first submission
  std::string model;      // ModelCatalog name
  int gpus = 1;           // requested GPUs (P)
  int virtual_nodes = 0;  // V (VirtualFlow); 0 in input means "= gpus"
  int global_batch = 0;   // samples per optimizer step
  // Parallel layout DP x TP x PP (docs/TRACES.md, core/parallel_layout.hpp):
  // tensor- and pipeline-parallel degrees, data parallelism = gpus / (tp*pp).
  // 1 x 1 is pure data parallelism. micro_batch_size: sequences per
  // pipeline micro-batch of a transformer job.
  int tp = 1;
  int pp = 1;
  int micro_batch_size = 1;
  ParameterServerSpec ps;
  std::int64_t iterations = 0;  // total work, optimizer steps
  // GPU sharing: the share of each of its `gpus` GPUs the job asks for, in
  // thousandths (Alibaba's gpu_milli). 0 = whole GPUs; 1..1000 is valid.
  // Only sharing policies honour a share below 1000; the others give the
  // job whole GPUs (docs/HETEROGENEITY.md, "GPU sharing").
  int gpu_milli = 0;
  std::optional<std::string> gpu_type;  // constraint: run only on this type
  TraceStatus status = TraceStatus::Unknown;
  double trace_duration_s = -1;  // run time recorded by the trace, -1 if none
  std::string vc;                // virtual cluster / tenant, "" if none
  std::string user;

  int effective_virtual_nodes() const { return virtual_nodes > 0 ? virtual_nodes : gpus; }
};

}  // namespace vnsim
