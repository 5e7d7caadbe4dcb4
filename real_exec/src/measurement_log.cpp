#include "vnsim/real_exec/measurement_log.hpp"

#include "vnsim/core/error.hpp"

namespace vnsim::real_exec {

MeasurementLog::MeasurementLog(const std::string& path, bool append)
    : out_(path, append ? std::ios::app : std::ios::trunc), enabled_(true) {
  if (!out_) throw InputError(path + ": cannot write the measurement log");
}

void MeasurementLog::write(const nlohmann::json& record) {
  if (!enabled_) return;
  out_ << record.dump() << '\n';
  out_.flush();  // a crash must not lose what was measured
}

}  // namespace vnsim::real_exec
