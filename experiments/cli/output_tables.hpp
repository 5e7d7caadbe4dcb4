#pragma once
// Reading back a replay's CSV outputs (jobs.csv, allocations.csv) for the
// commands that work on an output folder (`vnsim check`, `vnsim export`).
// Every damage is an InputError naming file:line and the reason.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "vnsim/core/job_record.hpp"

namespace vnsim::cli {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<long> lines;  // the file line of each row
  // The index of column `name`; an InputError naming `file` when absent.
  std::size_t column(const std::string& name, const std::string& file) const;
};

// A header line, then rows with as many fields as the header.
Table read_table(const std::filesystem::path& path);

// `text` as a finite number; an InputError naming `where` otherwise.
double number(const std::string& text, const std::string& where);

// Parses Batsim's interval set "0-3 7" back into ids.
std::vector<GpuId> gpu_ids(const std::string& text, const std::string& where);

}  // namespace vnsim::cli
