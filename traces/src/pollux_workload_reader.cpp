// Pollux workload CSV (docs/TRACES.md, "pollux-workload"):
// name,time,application,num_replicas,batch_size.
#include "column_order.hpp"
#include "pollux_fields.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"

namespace vnsim::traces_detail {

JobSpec parse_pollux_workload_row(std::string_view line, const ModelCatalog& models) {
  const auto f = expect_fields(line, 5);
  JobSpec job;
  job.id = std::string(trim(f[0]));
  if (job.id.empty()) throw RowError{"name is empty"};
  job.submit_s = non_negative_number(f[1], "time");
  job.model = std::string(trim(f[2]));
  if (models.find(job.model) == nullptr) throw RowError{"unknown application '" + job.model + "'", true};
  job.gpus = positive_int(f[3], "num_replicas");
  job.virtual_nodes = job.gpus;
  job.global_batch = positive_int(f[4], "batch_size");
  if (job.global_batch < job.gpus)
    throw RowError{"batch_size " + std::to_string(job.global_batch) + " is smaller than num_replicas " +
                   std::to_string(job.gpus)};
  return job;
}

namespace {

JobSpec parse_row(std::string_view line, long /*line_number*/) {
  return parse_pollux_workload_row(line, ModelCatalog::builtin());
}

const FixedLayoutCsv kLayout{"pollux-workload", kPolluxWorkloadHeader, {}, parse_row};

const TraceFormatRegistration kPolluxWorkload({
    .name = "pollux-workload",
    .position = 20,
    .trace = "Pollux workload CSV (§3)",
    .detected_by = "exactly `name,time,application,num_replicas,batch_size`; failing every other format, a "
                   "header with those columns in any order",
    .section = "pollux-workload",
    .claims_first_line = [](std::string_view line) { return claim_header(kLayout, line); },
    .line_parser = [](std::string_view header) { return make_fixed_layout_parser(kLayout, header); },
});

}  // namespace
}  // namespace vnsim::traces_detail
