// Helios and Acme Slurm-style job logs (docs/TRACES.md, "helios"). Columns
// are found by header name, so both releases' orders and extra columns work.
#include <limits>

#include "csv_header.hpp"
#include "field_checks.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"
#include "trace_format.hpp"

namespace vnsim::traces_detail {
namespace {

const std::vector<std::string>& required_columns() {
  static const std::vector<std::string> columns = {"job_id",      "gpu_num",    "state",
                                                   "submit_time", "start_time", "end_time"};
  return columns;
}

// Helios writes naive "YYYY-MM-DD HH:MM:SS"; Acme writes ISO 8601 with a 'T'
// and a zone offset, which is removed so that all times are UTC seconds.
std::optional<std::int64_t> parse_slurm_time(std::string_view text) {
  text = trim(text);
  if (text.size() < 19) return std::nullopt;
  std::string base(text.substr(0, 19));
  if (base[10] == 'T') base[10] = ' ';
  const auto seconds = parse_naive_timestamp(base);
  if (!seconds) return std::nullopt;
  std::string_view zone = text.substr(19);
  if (zone.empty() || zone == "Z") return seconds;
  if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':') return std::nullopt;
  const auto hours = parse_integer(zone.substr(1, 2)), minutes = parse_integer(zone.substr(4, 2));
  if (!hours || !minutes || zone[1] == '+' || zone[4] == '+' || *hours > 23 || *minutes > 59)
    return std::nullopt;
  const std::int64_t offset = (*hours * 3600 + *minutes * 60) * (zone[0] == '+' ? 1 : -1);
  return *seconds - offset;
}

TraceStatus status_of_state(std::string_view state) {
  state = trim(state);
  if (state == "COMPLETED") return TraceStatus::Pass;
  if (state == "CANCELLED") return TraceStatus::Killed;
  if (state == "FAILED" || state == "TIMEOUT" || state == "NODE_FAIL") return TraceStatus::Failed;
  throw RowError{"unknown state " + quoted(state) +
                 " (expected COMPLETED, CANCELLED, FAILED, TIMEOUT or NODE_FAIL)"};
}

class HeliosParser : public LineParser {
 public:
  explicit HeliosParser(const CsvHeader& header)
      : columns_(header.size()),
        job_id_(*header.index("job_id")),
        gpu_num_(*header.index("gpu_num")),
        state_(*header.index("state")),
        submit_(*header.index("submit_time")),
        start_(*header.index("start_time")),
        end_(*header.index("end_time")),
        user_(header.index("user")),
        vc_(header.index("vc")) {}

  JobSpec parse(std::string_view line, long /*line_number*/) const override {
    const auto f = split_fields(line, ',', columns_);
    JobSpec job;
    job.id = std::string(trim(f[job_id_]));
    if (job.id.empty()) throw RowError{"job_id is empty"};
    job.gpus = static_cast<int>(integer_in(f[gpu_num_], "gpu_num", 0, std::numeric_limits<int>::max()));
    if (job.gpus == 0) throw RowError{"CPU-only job (gpu_num 0)", true};
    job.status = status_of_state(f[state_]);
    const auto submit = time_field(f[submit_], "submit_time");
    if (trim(f[start_]).empty()) throw RowError{"job never started (start_time is empty)", true};
    const auto start = time_field(f[start_], "start_time");
    const auto end = time_field(f[end_], "end_time");
    if (end < start) throw RowError{"end_time is before start_time"};
    job.submit_s = static_cast<double>(submit);
    job.trace_duration_s = static_cast<double>(end - start);
    if (user_) job.user = std::string(trim(f[*user_]));
    if (vc_) job.vc = std::string(trim(f[*vc_]));
    return job;
  }

 private:
  static std::int64_t time_field(std::string_view field, const char* column) {
    const auto t = parse_slurm_time(field);
    if (!t)
      throw RowError{std::string(column) + " " + quoted(field) +
                     " is not a YYYY-MM-DD HH:MM:SS or ISO 8601 time"};
    return *t;
  }

  std::size_t columns_, job_id_, gpu_num_, state_, submit_, start_, end_;
  std::optional<std::size_t> user_, vc_;
};

bool looks_like_helios_header(std::string_view line) {
  return CsvHeader(line).missing(required_columns()).empty();
}

std::unique_ptr<LineParser> make_helios_parser(std::string_view header_line) {
  const CsvHeader header(header_line);
  const auto missing = header.missing(required_columns());
  if (!missing.empty()) {
    std::string list;
    for (const auto& name : missing) list += (list.empty() ? "" : ", ") + name;
    throw RowError{"helios header " + quoted(header_line) + " lacks column(s) " + list};
  }
  return std::make_unique<HeliosParser>(header);
}

const TraceFormatRegistration kHelios({
    .name = "helios",
    .position = 70,
    .trace = "SenseTime Helios (§7) and Shanghai AI Lab Acme (§8) job tables",
    .detected_by = "a header with the columns `job_id, gpu_num, state, submit_time, start_time, end_time`",
    .section = "helios",
    .claims_first_line = claim_when<looks_like_helios_header>,
    .line_parser = make_helios_parser,
});

}  // namespace
}  // namespace vnsim::traces_detail
