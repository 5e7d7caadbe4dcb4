#include "vnsim/real_exec/resume.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "vnsim/core/error.hpp"

namespace vnsim::real_exec {
namespace {

// GPU time held: opened at a start or resize, closed at the segment's end
// (or at the kill, for the segments still running).
void close_hold(PriorJob& j, double t, double& held_since) {
  if (held_since < 0) return;
  j.record.gpu_seconds += static_cast<double>(j.record.gpus.size()) * (t - held_since);
  held_since = -1;
}

}  // namespace

PriorAttempt read_prior_attempt(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read (is this the folder of a vnexec run?)");
  std::vector<std::string> lines;
  for (std::string text; std::getline(in, text);) lines.push_back(text);
  PriorAttempt a;
  a.attempts = 1;
  std::map<std::string, double> held_since;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const long line = static_cast<long>(n + 1);
    if (lines[n].empty()) continue;
    const auto j = nlohmann::json::parse(lines[n], nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (n + 1 == lines.size()) break;  // the record the kill interrupted
      throw input_error_at(path, line, "not a JSON object");
    }
    try {
      const std::string event = j.at("event").get<std::string>();
      const double t = j.at("t").get<double>();
      a.last_t = std::max(a.last_t, t);
      if (event == "resume") {
        ++a.attempts;
        continue;
      }
      if (!j.contains("job")) continue;
      const std::string id = j.at("job").get<std::string>();
      PriorJob& p = a.jobs[id];
      p.record.id = id;
      double& since = held_since.try_emplace(id, -1.0).first->second;
      if (j.contains("epoch")) p.last_epoch = std::max(p.last_epoch, j.at("epoch").get<int>());
      if (event == "submit") {
        p.submitted = true;
        p.record.submit_s = j.at("submit_s").get<double>();
      } else if (event == "start") {
        if (p.record.start_s < 0) p.record.start_s = t;
        p.record.gpus = j.at("gpus").get<std::vector<GpuId>>();
        std::sort(p.record.gpus.begin(), p.record.gpus.end());
        p.running = true;
        since = t;
      } else if (event == "resize") {
        close_hold(p, t, since);
        p.record.gpus = j.at("to_gpus").get<std::vector<GpuId>>();
        std::sort(p.record.gpus.begin(), p.record.gpus.end());
        if (!j.at("in_place").get<bool>()) ++p.record.restarts;
        since = t;
      } else if (event == "launch") {
        p.global_batch = j.at("global_batch").get<int>();
        p.total_iterations = j.value("total_iterations", 0LL);  // absent in logs before issue 17
      } else if (event == "iteration") {
        p.iterations_seen = std::max(p.iterations_seen, j.at("iteration").get<long long>() + 1);
      } else if (event == "preempt" || event == "failure" || event == "lost") {
        close_hold(p, t, since);
        ++p.record.restarts;
        p.running = false;
      } else if (event == "finish") {
        close_hold(p, t, since);
        p.done = true;
        p.running = false;
        p.record.state = FinalState::Completed;
        p.record.finish_s = t;
        p.record.reason.clear();
      } else if (event == "reject") {
        p.done = true;
        p.running = false;
        p.record.state = FinalState::Rejected;
        p.record.reason = j.at("reason").get<std::string>();
      }
    } catch (const nlohmann::json::exception& e) {
      throw input_error_at(path, line,
                           std::string("a field is missing or has the wrong type (") + e.what() + ")");
    }
  }
  for (auto& [id, p] : a.jobs)
    if (p.running) close_hold(p, a.last_t, held_since[id]);
  return a;
}

}  // namespace vnsim::real_exec
