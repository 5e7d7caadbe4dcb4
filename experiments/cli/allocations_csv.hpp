#pragma once
// allocations.csv (docs/OUTPUTS.md, "allocations.csv"): every allocation
// change of every job, in the order the replay made them, and its reader for
// `vnsim check`.
#include <string>
#include <vector>

#include "vnsim/core/job_record.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::cli {

void write_allocations_csv(const std::string& path, const std::vector<AllocationEvent>& log,
                           const std::vector<JobRecord>& jobs);

// One RFC 4180 line split into fields (quotes removed, doubled quotes
// undone); throws InputError naming file:line when a quote is not closed.
std::vector<std::string> split_csv_line(const std::string& line, const std::string& file, long line_number);

}  // namespace vnsim::cli
