#pragma once
// The tidy per-sweep table (results.csv): one row per run with every axis
// value, the run's status and the key metrics of its summary.json.
#include <string>
#include <vector>

#include "vnsim/sweep/experiment_config.hpp"

namespace vnsim::sweep {

std::string results_header();
// One CSV line (no newline) for `run`, read from its directory: status "ok"
// (summary.json present), "failed" (exit_code.txt present), else
// "interrupted" when the sweep was stopped by a signal, or "not-run".
std::string results_row(const RunSpec& run, const std::string& out_dir, bool sweep_interrupted = false);
// Header + rows in run order, each line ending in '\n'.
void write_results_csv(const std::string& path, const std::vector<std::string>& rows);

}  // namespace vnsim::sweep
