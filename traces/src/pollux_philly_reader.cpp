// Pollux-derived Philly CSV (docs/TRACES.md, "pollux-philly"):
// timestamp,duration,num_gpus,gpu_time,cluster.
#include "column_order.hpp"
#include "pollux_fields.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"

namespace vnsim::traces_detail {

// submit_s is seconds since 1970 of the naive timestamp; read_trace rebases.
JobSpec parse_pollux_philly_row(std::string_view line, long line_number) {
  const auto f = expect_fields(line, 5);
  const auto submit = parse_naive_timestamp(f[0]);
  if (!submit)
    throw RowError{"timestamp '" + std::string(trim(f[0])) + "' is not a valid YYYY-MM-DD HH:MM:SS time"};
  JobSpec job;
  job.id = "philly-" + std::to_string(line_number);
  job.submit_s = static_cast<double>(*submit);
  job.trace_duration_s = non_negative_number(f[1], "duration");
  job.gpus = positive_int(f[2], "num_gpus");
  // gpu_time is duration x num_gpus in every row; it is checked for form only
  // and recomputed from the other two where needed.
  non_negative_number(f[3], "gpu_time");
  job.vc = std::string(trim(f[4]));
  return job;
}

namespace {

// The columns the reader does not use, and what a row gets without them:
// gpu_time is only checked for form, cluster becomes the job's vc.
const FixedLayoutCsv kLayout{
    "pollux-philly", kPolluxPhillyHeader, {{"gpu_time", "0"}, {"cluster", ""}}, parse_pollux_philly_row};

const TraceFormatRegistration kPolluxPhilly({
    .name = "pollux-philly",
    .position = 10,
    .trace = "Pollux-derived Philly CSV (§2.2)",
    .detected_by = "exactly `timestamp,duration,num_gpus,gpu_time,cluster`; failing every other format, a "
                   "header with those columns in any order (`gpu_time`, `cluster` optional)",
    .section = "pollux-philly",
    .claims_first_line = [](std::string_view line) { return claim_header(kLayout, line); },
    .line_parser = [](std::string_view header) { return make_fixed_layout_parser(kLayout, header); },
});

}  // namespace
}  // namespace vnsim::traces_detail
