// Tiresias CSV (docs/TRACES.md, "tiresias"):
// job_id,num_gpu,submit_time,iterations,model_name,duration,interval.
#include <limits>

#include "field_checks.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"
#include "trace_format.hpp"

namespace vnsim::traces_detail {
namespace {

constexpr std::string_view kTiresiasHeader =
    "job_id,num_gpu,submit_time,iterations,model_name,duration,interval";

class TiresiasParser : public LineParser {
 public:
  JobSpec parse(std::string_view line, long /*line_number*/) const override {
    const auto f = split_fields(line, ',', 7);
    JobSpec job;
    job.id = std::string(trim(f[0]));
    if (job.id.empty()) throw RowError{"job_id is empty"};
    job.gpus = static_cast<int>(integer_in(f[1], "num_gpu", 1, std::numeric_limits<int>::max()));
    job.submit_s = number_at_least(f[2], "submit_time", 0);
    // iterations and model_name describe TF-benchmark CNNs that are not
    // catalog models; they are checked for form only (docs/TRACES.md).
    integer_in(f[3], "iterations", 0, std::numeric_limits<std::int64_t>::max());
    if (trim(f[4]).empty()) throw RowError{"model_name is empty"};
    job.trace_duration_s = number_at_least(f[5], "duration", 0);
    number_at_least(f[6], "interval", 0);
    return job;
  }
};

std::string without_spaces(std::string_view line) {
  std::string out;
  for (char c : line)
    if (c != ' ' && c != '\t') out += c;
  return out;
}

bool looks_like_tiresias_header(std::string_view line) {
  return without_spaces(line) == kTiresiasHeader;
}

std::unique_ptr<LineParser> make_tiresias_parser(std::string_view header) {
  if (!looks_like_tiresias_header(header))
    throw RowError{"header " + quoted(header) + " is not the tiresias header '" +
                   std::string(kTiresiasHeader) + "'"};
  return std::make_unique<TiresiasParser>();
}

const TraceFormatRegistration kTiresias({
    .name = "tiresias",
    .position = 90,
    .trace = "Tiresias CSV (§4)",
    .detected_by = "exactly `job_id,num_gpu,submit_time,iterations,model_name,duration,interval` (spaces "
                   "ignored)",
    .section = "tiresias",
    .claims_first_line = claim_when<looks_like_tiresias_header>,
    .line_parser = make_tiresias_parser,
});

}  // namespace
}  // namespace vnsim::traces_detail
