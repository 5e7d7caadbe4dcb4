#include "gpu_type_names.hpp"

#include "text_fields.hpp"

namespace vnsim::traces_detail {

std::string catalog_gpu_type(std::string_view trace_name) {
  trace_name = trim(trace_name);
  // The catalog has a single V100 entry, so the 16 GB / 32 GB distinction of
  // the trace is lost (documented).
  if (trace_name == "V100M16" || trace_name == "V100M32") return "V100";
  return std::string(trace_name);
}

}  // namespace vnsim::traces_detail
