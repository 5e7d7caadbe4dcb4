#pragma once
// `vnsim calibrate`: fits a cluster spec's link efficiencies to measured step
// times (core/link_calibration.hpp) and writes the calibrated spec.
#include <string>
#include <vector>

namespace vnsim::cli {
const char* calibrate_usage();
int run_calibrate_command(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
