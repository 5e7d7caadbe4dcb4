#include "vnsim/core/job_spec.hpp"

#include "vnsim/core/error.hpp"

namespace vnsim {

const char* to_string(TraceStatus s) {
  switch (s) {
    case TraceStatus::Unknown:
      return "unknown";
    case TraceStatus::Pass:
      return "pass";
    case TraceStatus::Killed:
      return "killed";
    case TraceStatus::Failed:
      return "failed";
  }
  return "unknown";
}

TraceStatus trace_status_from_string(const std::string& s) {
  if (s.empty() || s == "unknown") return TraceStatus::Unknown;
  if (s == "pass" || s == "Pass" || s == "completed") return TraceStatus::Pass;
  if (s == "killed" || s == "Killed") return TraceStatus::Killed;
  if (s == "failed" || s == "Failed") return TraceStatus::Failed;
  throw InputError("unknown trace status '" + s + "' (expected pass, killed, failed or unknown)");
}

}  // namespace vnsim
