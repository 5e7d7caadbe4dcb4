#pragma once
// measurements.jsonl: one JSON object per line, in executor-time order
// (format in docs/REAL_EXEC.md).
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace vnsim::real_exec {

class MeasurementLog {
 public:
  MeasurementLog() = default;  // discards everything (tests)
  // append: a resumed run continues the killed attempt's log.
  explicit MeasurementLog(const std::string& path, bool append = false);
  void write(const nlohmann::json& record);

 private:
  std::ofstream out_;
  bool enabled_ = false;
};

}  // namespace vnsim::real_exec
