#include "allocations_csv.hpp"

#include <algorithm>
#include <fstream>

#include "vnsim/core/error.hpp"

namespace vnsim::cli {
namespace {

const char* cause_name(AllocationCause c) {
  switch (c) {
    case AllocationCause::Start:
      return "start";
    case AllocationCause::Complete:
      return "complete";
    case AllocationCause::Preempt:
      return "preempt";
    case AllocationCause::NodeDown:
      return "node-down";
    case AllocationCause::Resize:
      return "resize";
  }
  return "start";
}

std::vector<GpuId> sorted(std::vector<GpuId> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

void write_allocations_csv(const std::string& path, const std::vector<AllocationEvent>& log,
                           const std::vector<JobRecord>& jobs) {
  std::ofstream f(path, std::ios::binary);
  f << "time,job_id,event,allocated_resources,gpu_milli,cause\n";
  for (std::size_t i = 0; i < log.size(); ++i) {
    const AllocationEvent& e = log[i];
    std::string cause = cause_name(e.cause);
    // A resize that keeps the GPU count but changes the GPUs is a migration
    // (the recorder logs a resize as a release and a take of the same job at
    // once); one onto the same GPUs (a new batch size) stays a resize.
    if (e.cause == AllocationCause::Resize) {
      const AllocationEvent* other = nullptr;
      if (!e.taken && i + 1 < log.size()) other = &log[i + 1];
      if (e.taken && i > 0) other = &log[i - 1];
      if (other != nullptr && other->job == e.job && other->cause == AllocationCause::Resize &&
          other->gpus.size() == e.gpus.size() && sorted(other->gpus) != sorted(e.gpus))
        cause = "migrate";
    }
    const std::string who = "allocation of job '" + jobs.at(e.job).id + "'";
    f << fixed6(e.time_s, who) << ',' << csv_field(jobs.at(e.job).id) << ',' << (e.taken ? "take" : "release")
      << ',' << csv_field(interval_set(e.gpus)) << ',' << e.milli << ',' << cause << '\n';
  }
  if (!f) throw InputError(path + ": cannot write");
}

std::vector<std::string> split_csv_line(const std::string& line, const std::string& file, long line_number) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw InputError(file + ":" + std::to_string(line_number) + ": a quoted field is not closed");
  return fields;
}

}  // namespace vnsim::cli
