#pragma once
// The row error every reader throws, and the row parsers that other code
// calls directly. read_trace.cpp adds the file and line to a RowError and
// applies the BadRowPolicy.
#include <optional>
#include <string>
#include <string_view>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim::traces_detail {

// The reason of a CSV row that ends the file without '\n' (docs/TRACES.md,
// "Bad rows"): a file cut inside its last field still splits into the right
// number of fields, with a wrong number in the cut one.
inline constexpr const char* kUnterminatedRow =
    "last row has no final newline, so it may be cut short (add the newline if it is complete)";

struct RowError {
  std::string reason;
  bool filtered = false;  // a documented filtering rule, not damage (IssueKind::Filtered)
};

inline constexpr std::string_view kPolluxPhillyHeader = "timestamp,duration,num_gpus,gpu_time,cluster";
inline constexpr std::string_view kPolluxWorkloadHeader = "name,time,application,num_replicas,batch_size";

// submit_s is seconds since 1970 of the naive timestamp; read_trace rebases.
JobSpec parse_pollux_philly_row(std::string_view line, long line_number);
JobSpec parse_pollux_workload_row(std::string_view line, const ModelCatalog& models);
JobSpec parse_jsonl_row(std::string_view line, const ModelCatalog& models);

}  // namespace vnsim::traces_detail
