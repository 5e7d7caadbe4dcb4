// Alibaba GPU 2023 openb pod list (docs/TRACES.md, "openb-pods").
#include <limits>

#include "csv_header.hpp"
#include "field_checks.hpp"
#include "gpu_type_names.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"
#include "trace_format.hpp"

namespace vnsim::traces_detail {
namespace {

const std::vector<std::string>& required_columns() {
  static const std::vector<std::string> columns = {"name",           "num_gpu",      "gpu_milli",
                                                   "gpu_spec",       "pod_phase",    "creation_time",
                                                   "scheduled_time", "deletion_time"};
  return columns;
}

// gpu_spec lists the allowed types ("V100M16|V100M32"). JobSpec holds one
// type, so a list whose names all map to the same catalog type becomes that
// type; any other list is kept verbatim and the simulator rejects it by name.
std::optional<std::string> gpu_constraint(std::string_view spec) {
  spec = trim(spec);
  if (spec.empty()) return std::nullopt;
  std::optional<std::string> common;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const auto bar = spec.find('|', start);
    const auto name =
        trim(spec.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (name.empty()) throw RowError{"gpu_spec " + quoted(spec) + " has an empty type name"};
    const std::string mapped = catalog_gpu_type(name);
    if (common && *common != mapped) return std::string(spec);
    common = mapped;
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return common;
}

TraceStatus status_of_phase(std::string_view phase) {
  if (phase == "Succeeded") return TraceStatus::Pass;
  if (phase == "Failed") return TraceStatus::Failed;
  if (phase == "Running" || phase == "Pending") return TraceStatus::Unknown;
  throw RowError{"unknown pod_phase " + quoted(phase) + " (expected Running, Succeeded, Failed or Pending)"};
}

class OpenbParser : public LineParser {
 public:
  explicit OpenbParser(const CsvHeader& h)
      : columns_(h.size()),
        name_(*h.index("name")),
        num_gpu_(*h.index("num_gpu")),
        gpu_milli_(*h.index("gpu_milli")),
        gpu_spec_(*h.index("gpu_spec")),
        phase_(*h.index("pod_phase")),
        creation_(*h.index("creation_time")),
        scheduled_(*h.index("scheduled_time")),
        deletion_(*h.index("deletion_time")) {}

  JobSpec parse(std::string_view line, long /*line_number*/) const override {
    const auto f = split_fields(line, ',', columns_);
    JobSpec job;
    job.id = std::string(trim(f[name_]));
    if (job.id.empty()) throw RowError{"name is empty"};
    const auto num_gpu = integer_in(f[num_gpu_], "num_gpu", 0, std::numeric_limits<int>::max());
    const auto milli = integer_in(f[gpu_milli_], "gpu_milli", 0, 1000);
    if (num_gpu == 0) throw RowError{"CPU-only pod (num_gpu 0)", true};
    // A GPU-sharing pod (gpu_milli < 1000) keeps its share; 1000 (and the
    // unused 0) mean whole GPUs (docs/TRACES.md, "Fractional GPUs").
    job.gpus = static_cast<int>(num_gpu);
    job.gpu_milli = milli < 1000 ? static_cast<int>(milli) : 0;
    job.gpu_type = gpu_constraint(f[gpu_spec_]);
    job.status = status_of_phase(trim(f[phase_]));
    job.submit_s = number_at_least(f[creation_], "creation_time", 0);
    const auto scheduled = optional_number(f[scheduled_], "scheduled_time", 0);
    if (!scheduled) throw RowError{"pod never scheduled (scheduled_time is empty)", true};
    const auto deletion = optional_number(f[deletion_], "deletion_time", 0);
    if (!deletion) throw RowError{"deletion_time is empty"};
    if (*deletion < *scheduled) throw RowError{"deletion_time is before scheduled_time"};
    job.trace_duration_s = *deletion - *scheduled;
    return job;
  }

 private:
  std::size_t columns_, name_, num_gpu_, gpu_milli_, gpu_spec_, phase_, creation_, scheduled_, deletion_;
};

bool looks_like_openb_header(std::string_view line) {
  return CsvHeader(line).missing(required_columns()).empty();
}

std::unique_ptr<LineParser> make_openb_pods_parser(std::string_view header_line) {
  const CsvHeader header(header_line);
  const auto missing = header.missing(required_columns());
  if (!missing.empty()) {
    std::string list;
    for (const auto& name : missing) list += (list.empty() ? "" : ", ") + name;
    throw RowError{"openb pod header " + quoted(header_line) + " lacks column(s) " + list};
  }
  return std::make_unique<OpenbParser>(header);
}

const TraceFormatRegistration kOpenbPods({
    .name = "openb-pods",
    .position = 60,
    .trace = "Alibaba GPU 2023 openb pod list (§6)",
    .detected_by = "a header with the columns `name, num_gpu, gpu_milli, gpu_spec, pod_phase, creation_time, "
                   "scheduled_time, deletion_time`",
    .section = "openb-pods",
    .claims_first_line = claim_when<looks_like_openb_header>,
    .line_parser = make_openb_pods_parser,
});

}  // namespace
}  // namespace vnsim::traces_detail
