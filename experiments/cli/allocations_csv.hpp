#pragma once
// allocations.csv (docs/OUTPUTS.md, "allocations.csv"): every allocation
// change of every job, in the order the replay made them, and its reader for
// `vnsim check`.
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/job_record.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::cli {

void write_allocations_csv(const std::string& path, const std::vector<AllocationEvent>& log,
                           const std::vector<JobRecord>& jobs);

// allocations.csv written row by row while the replay runs
// (ReplayOptions::allocation_sink), so that the log never sits in memory: a
// run with millions of preemptions keeps a flat footprint. Same bytes as
// write_allocations_csv on the same events. A row is written at once; a
// resize's release is written with its take (the recorder logs them as a
// pair), since only together are they told apart from a migration.
class AllocationCsvStream {
 public:
  // `job_ids`: the jobs' ids by JobIndex. Throws InputError when `path`
  // cannot be created.
  AllocationCsvStream(const std::string& path, std::vector<std::string> job_ids);
  void add(const AllocationEvent& e);
  // Writes the last row and flushes; throws InputError when a write failed.
  void finish();

 private:
  void write_row(const AllocationEvent& e, const AllocationEvent* other);

  std::string path_;
  std::vector<std::string> ids_;
  std::vector<std::string> quoted_ids_;  // as csv_field writes them
  std::ofstream out_;
  std::optional<AllocationEvent> pending_;  // a resize's release, written with its take
};

// One RFC 4180 line split into fields (quotes removed, doubled quotes
// undone); throws InputError naming file:line when a quote is not closed.
std::vector<std::string> split_csv_line(const std::string& line, const std::string& file, long line_number);

}  // namespace vnsim::cli
