#include "vnsim/real_exec/workload.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "vnsim/core/error.hpp"
#include "vnsim/core/parallel_layout.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim::real_exec {

std::size_t emulated_parameter_count(const ModelParams& model, const EmulationScale& scale) {
  const double doubles = model.gradient_bytes * scale.gradient_fraction / sizeof(double);
  return static_cast<std::size_t>(std::max(1.0, std::round(doubles)));
}

JobShape emulated_shape(const ModelParams& model, const EmulationScale& scale, long long global_batch,
                        std::vector<int> vn_per_rank) {
  JobShape s;
  s.global_batch = global_batch;
  s.vn_per_rank = std::move(vn_per_rank);
  s.flops_fixed = model.alpha_compute_s * scale.flops_per_reference_second;
  s.flops_per_sample = model.beta_compute_s * scale.flops_per_reference_second;
  return s;
}

// The jsonl codec is the traces module's (one codec of a JobSpec as JSON);
// the executor adds what it needs on top: fully specified data-parallel jobs.
std::vector<JobSpec> read_executor_trace(const std::string& path, double time_scale) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the trace");
  std::vector<JobSpec> jobs;
  std::set<std::string> ids;
  std::string line;
  long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    JobSpec s;
    try {
      s = parse_jsonl_line(line, ModelCatalog::builtin());
    } catch (const InputError& e) {
      throw input_error_at(path, line_no, e.what());
    }
    const auto missing = [&](const char* key) {
      return input_error_at(path, line_no,
                            std::string("missing field '") + key + "' (vnexec needs fully specified jobs)");
    };
    if (s.model.empty()) throw missing("model");
    if (s.global_batch < 1) throw missing("global_batch");
    if (s.iterations < 1) throw missing("iterations");
    if (uses_layout(s) || s.ps.servers > 0 || s.gpu_milli != 0)
      throw input_error_at(path, line_no,
                           "vnexec runs data-parallel jobs on whole workers only (no tp, pp, "
                           "micro_batch_size, ps_servers or gpu_milli)");
    if (!ids.insert(s.id).second) throw input_error_at(path, line_no, "duplicate job id '" + s.id + "'");
    if (s.global_batch < s.effective_virtual_nodes())
      throw input_error_at(path, line_no, "global_batch must be >= the virtual nodes (each needs a sample)");
    s.submit_s *= time_scale;
    jobs.push_back(std::move(s));
  }
  if (jobs.empty()) throw InputError(path + ": no jobs");
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

void write_executor_trace(const std::string& path, const std::vector<JobSpec>& jobs) {
  write_jsonl(path, jobs);
}

}  // namespace vnsim::real_exec
