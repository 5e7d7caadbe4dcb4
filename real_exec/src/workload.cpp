#include "vnsim/real_exec/workload.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "vnsim/core/error.hpp"

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

namespace {

const std::set<std::string> kFields = {"id",           "submit_s",   "gpus",     "model",  "virtual_nodes",
                                       "global_batch", "iterations", "gpu_type", "status", "trace_duration_s",
                                       "vc",           "user"};

}  // namespace

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
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw input_error_at(path, line_no, std::string("invalid JSON: ") + e.what());
    }
    if (!j.is_object()) throw input_error_at(path, line_no, "expected a JSON object");
    for (const auto& [k, v] : j.items())
      if (!kFields.count(k)) throw input_error_at(path, line_no, "unknown field '" + k + "'");
    const auto need = [&](const char* key) -> const nlohmann::json& {
      if (!j.contains(key))
        throw input_error_at(path, line_no,
                             std::string("missing field '") + key + "' (vnexec needs fully specified jobs)");
      return j.at(key);
    };
    const auto integer = [&](const char* key, long long min) {
      const auto& v = need(key);
      if (!v.is_number_integer() || v.get<long long>() < min)
        throw input_error_at(path, line_no,
                             std::string("field '") + key + "' must be an integer >= " + std::to_string(min));
      return v.get<long long>();
    };
    JobSpec s;
    if (!need("id").is_string() || j["id"].get<std::string>().empty())
      throw input_error_at(path, line_no, "field 'id' must be a non-empty string");
    s.id = j["id"].get<std::string>();
    if (!ids.insert(s.id).second) throw input_error_at(path, line_no, "duplicate job id '" + s.id + "'");
    if (!need("submit_s").is_number() || j["submit_s"].get<double>() < 0)
      throw input_error_at(path, line_no, "field 'submit_s' must be a number >= 0");
    s.submit_s = j["submit_s"].get<double>() * time_scale;
    if (!need("model").is_string()) throw input_error_at(path, line_no, "field 'model' must be a string");
    s.model = j["model"].get<std::string>();
    s.gpus = static_cast<int>(integer("gpus", 1));
    s.virtual_nodes = j.contains("virtual_nodes") ? static_cast<int>(integer("virtual_nodes", 0)) : 0;
    s.global_batch = static_cast<int>(integer("global_batch", 1));
    s.iterations = integer("iterations", 1);
    if (s.global_batch < s.effective_virtual_nodes())
      throw input_error_at(path, line_no, "global_batch must be >= the virtual nodes (each needs a sample)");
    if (j.contains("gpu_type")) s.gpu_type = j["gpu_type"].get<std::string>();
    jobs.push_back(std::move(s));
  }
  if (jobs.empty()) throw InputError(path + ": no jobs");
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

void write_executor_trace(const std::string& path, const std::vector<JobSpec>& jobs) {
  std::ofstream out(path);
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  for (const JobSpec& s : jobs) {
    nlohmann::ordered_json j;
    j["id"] = s.id;
    j["submit_s"] = s.submit_s;
    j["gpus"] = s.gpus;
    j["model"] = s.model;
    j["virtual_nodes"] = s.virtual_nodes;
    j["global_batch"] = s.global_batch;
    j["iterations"] = s.iterations;
    if (s.gpu_type) j["gpu_type"] = *s.gpu_type;
    out << j.dump() << '\n';
  }
  if (!out) throw InputError(path + ": cannot write");
}

}  // namespace vnsim::real_exec
