#include "allocations_csv.hpp"

#include <algorithm>
#include <cmath>
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

AllocationCsvStream::AllocationCsvStream(const std::string& path, std::vector<std::string> job_ids)
    : path_(path), ids_(std::move(job_ids)), out_(path, std::ios::binary) {
  if (!out_) throw InputError(path + ": cannot write");
  quoted_ids_.reserve(ids_.size());
  for (const std::string& id : ids_) quoted_ids_.push_back(csv_field(id));
  out_ << "time,job_id,event,allocated_resources,gpu_milli,cause\n";
}

// The recorder logs a resize as its release immediately followed by its
// take: the release waits for the take, and the take is judged against it.
void AllocationCsvStream::add(const AllocationEvent& e) {
  if (pending_) write_row(*pending_, &e);
  if (e.cause == AllocationCause::Resize && !e.taken) {
    pending_ = e;
    return;
  }
  write_row(e, e.cause == AllocationCause::Resize && pending_ ? &*pending_ : nullptr);
  pending_.reset();
}

void AllocationCsvStream::finish() {
  if (pending_) write_row(*pending_, nullptr);
  pending_.reset();
  out_.flush();
  if (!out_) throw InputError(path_ + ": cannot write");
}

// `other`: the other half of a resize (its take for a release, its release
// for a take), nullptr when none.
void AllocationCsvStream::write_row(const AllocationEvent& e, const AllocationEvent* other) {
  const char* cause = cause_name(e.cause);
  // A resize that keeps the GPU count but changes the GPUs is a migration;
  // one onto the same GPUs (a new batch size) stays a resize.
  if (e.cause == AllocationCause::Resize && other != nullptr && other->job == e.job &&
      other->cause == AllocationCause::Resize && other->gpus.size() == e.gpus.size() &&
      sorted(other->gpus) != sorted(e.gpus))
    cause = "migrate";
  // Millions of rows: the message naming the job is built only for a time
  // that fixed6 will refuse (not finite).
  out_ << fixed6(e.time_s,
                 std::isfinite(e.time_s) ? std::string() : "allocation of job '" + ids_.at(e.job) + "'");
  out_ << ',' << quoted_ids_.at(e.job) << ',' << (e.taken ? "take" : "release") << ','
       << csv_field(interval_set(e.gpus)) << ',' << e.milli << ',' << cause << '\n';
  // A full disk fails the run now, not after hours more of simulation.
  if (!out_) throw InputError(path_ + ": cannot write");
}

void write_allocations_csv(const std::string& path, const std::vector<AllocationEvent>& log,
                           const std::vector<JobRecord>& jobs) {
  std::vector<std::string> ids;
  ids.reserve(jobs.size());
  for (const JobRecord& j : jobs) ids.push_back(j.id);
  AllocationCsvStream stream(path, std::move(ids));
  for (const AllocationEvent& e : log) stream.add(e);
  stream.finish();
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
