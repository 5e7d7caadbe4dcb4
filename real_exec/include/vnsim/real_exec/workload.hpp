#pragma once
// How a catalog model becomes emulated work: compute flops per micro-batch
// and the size of the all-reduced gradient, both scaled so that a CPU
// testbed runs a trace in seconds (docs/REAL_EXEC.md, "Emulation scale").
#include <cstddef>
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/real_exec/step_runner.hpp"

namespace vnsim::real_exec {

struct EmulationScale {
  // Flops executed for one second of the model's compute on the catalog's
  // reference GPU (alpha_c + beta_c * m seconds per micro-batch).
  double flops_per_reference_second = 5e8;
  // Fraction of the model's fp32 gradient bytes that is all-reduced.
  double gradient_fraction = 1e-3;
};

// Doubles in the emulated gradient (at least 1).
std::size_t emulated_parameter_count(const ModelParams& model, const EmulationScale& scale);
JobShape emulated_shape(const ModelParams& model, const EmulationScale& scale, long long global_batch,
                        std::vector<int> vn_per_rank);

// Reads a jsonl trace (the fields of docs/TRACES.md "jsonl", parsed by the
// traces module's codec, parse_jsonl_line) whose jobs are fully specified
// data-parallel jobs: model, global_batch and iterations given, no layout,
// parameter-server or GPU-share fields. Submit times are multiplied by
// `time_scale`. Errors name file:line and the field.
std::vector<JobSpec> read_executor_trace(const std::string& path, double time_scale);
// The same format back (what the run executed, for `vnsim validate`), with
// the traces module's writer (write_jsonl), so no JobSpec field is dropped.
void write_executor_trace(const std::string& path, const std::vector<JobSpec>& jobs);

}  // namespace vnsim::real_exec
