#include <fstream>
#include <nlohmann/json.hpp>

#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {

std::string to_jsonl_line(const JobSpec& job) {
  // ordered_json keeps this field order, so files diff well and stay stable.
  nlohmann::ordered_json obj;
  obj["id"] = job.id;
  obj["submit_s"] = job.submit_s;
  obj["model"] = job.model;
  obj["gpus"] = job.gpus;
  if (job.gpu_milli != 0) obj["gpu_milli"] = job.gpu_milli;  // whole-GPU files stay as they were
  obj["virtual_nodes"] = job.virtual_nodes;
  obj["global_batch"] = job.global_batch;
  // Only layout jobs carry these, so pure-DP files stay as they were.
  if (job.tp != 1) obj["tp"] = job.tp;
  if (job.pp != 1) obj["pp"] = job.pp;
  if (job.micro_batch_size != 1) obj["micro_batch_size"] = job.micro_batch_size;
  // Likewise only parameter-server jobs carry these.
  if (job.ps.servers > 0) {
    obj["ps_servers"] = job.ps.servers;
    obj["ps_mode"] = job.ps.async ? "async" : "sync";
    if (job.ps.straggler_probability > 0) {
      obj["straggler_probability"] = job.ps.straggler_probability;
      obj["straggler_min_slowdown"] = job.ps.straggler_min_slowdown;
      obj["straggler_max_slowdown"] = job.ps.straggler_max_slowdown;
      obj["straggler_seed"] = job.ps.straggler_seed;
    }
  }
  obj["iterations"] = job.iterations;
  if (job.gpu_type) obj["gpu_type"] = *job.gpu_type;
  obj["status"] = to_string(job.status);
  if (job.trace_duration_s >= 0) obj["trace_duration_s"] = job.trace_duration_s;
  obj["vc"] = job.vc;
  if (!job.user.empty()) obj["user"] = job.user;
  return obj.dump();
}

void write_jsonl(const std::string& path, const std::vector<JobSpec>& jobs) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(path + ": cannot open for writing");
  for (const auto& job : jobs) out << to_jsonl_line(job) << '\n';
  out.flush();
  if (!out) throw InputError(path + ": write failed");
}

}  // namespace vnsim
