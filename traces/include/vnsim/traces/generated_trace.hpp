#pragma once
// A trace generated on the fly where a trace file may be named (`vnsim replay
// --trace`): "synthetic" or "synthetic:N" (the Philly-like generator,
// synthetic_philly.hpp, at the philly profile's rate), "synthetic-<kind>" or
// "synthetic-<kind>:N" (draw_synthetic_jobs, Poisson at the kind's rate,
// synthetic_traces.hpp); N jobs, 5,000 without it. Anything else names a file.
#include <cstdint>
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"

namespace vnsim {

struct GeneratedTrace {
  std::vector<JobSpec> jobs;
  std::string description;  // which generator, how many jobs, the seed (run.json's trace)
};

// True for every name that starts with "synthetic"; generate_trace then
// accepts it or says why not.
bool is_generated_trace(const std::string& name);
// The jobs of a generated trace, seeded; InputError for a malformed name, an
// N that is not a whole number >= 1, or an unknown kind.
GeneratedTrace generate_trace(const std::string& name, std::uint64_t seed);

}  // namespace vnsim
