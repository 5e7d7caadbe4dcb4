// Gavel .trace (docs/TRACES.md, "gavel"): tab-separated, no header, in the
// 7-field layout of the 2019 parser or the 10-field layout of the current one.
#include <cctype>
#include <limits>
#include <map>

#include "field_checks.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"
#include "trace_format.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim::traces_detail {
namespace {

struct Layout {
  std::size_t fields, total_steps, arrival, scale_factor;
};
constexpr Layout kLayout7{7, 4, 5, 6};
constexpr Layout kLayout10{10, 5, 9, 6};

// Gavel job family (the job type without its "(batch size N)") to a catalog
// model (docs/TRACES.md, gavel): a family whose network and data set a
// Pollux model already trains maps to that model; every other family of
// Gavel's throughput table has its own catalog model, named by the family in
// lower case (Transformer -> transformer, LM -> lm, CycleGAN -> cyclegan,
// A3C -> a3c; scripts/derive_model_catalog.py derives them from that table).
const std::map<std::string, std::string, std::less<>>& pollux_equivalents() {
  static const std::map<std::string, std::string, std::less<>> models = {
      {"ResNet-18", "cifar10"},   // ResNet-18 on CIFAR-10 in both
      {"ResNet-50", "imagenet"},  // ResNet-50 on ImageNet in both
      {"Recommendation", "ncf"},  // MovieLens recommender; closest catalog model
  };
  return models;
}

const ModelParams* catalog_model(const std::string& family) {
  const auto equivalent = pollux_equivalents().find(family);
  if (equivalent != pollux_equivalents().end()) return &ModelCatalog::builtin().at(equivalent->second);
  std::string lower = family;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ModelCatalog::builtin().find(lower);
}

struct JobType {
  std::string family;
  int batch = 0;  // 0 when the job type names no batch size
};

JobType split_job_type(std::string_view text) {
  text = trim(text);
  constexpr std::string_view kMarker = " (batch size ";
  const auto at = text.find(kMarker);
  if (at == std::string_view::npos) return {std::string(text), 0};
  std::string_view rest = text.substr(at + kMarker.size());
  if (rest.empty() || rest.back() != ')') throw RowError{"job_type " + quoted(text) + " is malformed"};
  rest.remove_suffix(1);
  const auto batch = parse_integer(rest);
  if (!batch || *batch < 1 || *batch > std::numeric_limits<int>::max())
    throw RowError{"job_type " + quoted(text) + " has no valid batch size"};
  return {std::string(text.substr(0, at)), static_cast<int>(*batch)};
}

bool numeric_fields_parse(const std::vector<std::string_view>& f, const Layout& layout) {
  const auto steps = parse_integer(f[layout.total_steps]);
  const auto arrival = parse_finite_double(f[layout.arrival]);
  const auto scale = parse_integer(f[layout.scale_factor]);
  return steps && arrival && scale;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto tab = line.find('\t', start);
    fields.push_back(
        line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

std::optional<Layout> layout_of(std::string_view line) {
  const auto f = split_tabs(line);
  for (const Layout& layout : {kLayout7, kLayout10})
    if (f.size() == layout.fields && numeric_fields_parse(f, layout)) return layout;
  return std::nullopt;
}

class GavelParser : public LineParser {
 public:
  explicit GavelParser(Layout layout) : layout_(layout) {}

  JobSpec parse(std::string_view line, long line_number) const override {
    const auto f = split_fields(line, '\t', layout_.fields);
    const JobType type = split_job_type(f[0]);
    const ModelParams* model = catalog_model(type.family);
    if (model == nullptr)
      throw RowError{"Gavel job type " + quoted(f[0]) + " has no catalog model (docs/TRACES.md, gavel)",
                     true};
    JobSpec job;
    job.id = "gavel-" + std::to_string(line_number);
    job.model = model->name;
    const std::int64_t worker_steps =
        integer_in(f[layout_.total_steps], "total_steps", 1, std::numeric_limits<std::int64_t>::max());
    job.submit_s = number_at_least(f[layout_.arrival], "arrival_time", 0);
    job.gpus = static_cast<int>(
        integer_in(f[layout_.scale_factor], "scale_factor", 1, std::numeric_limits<int>::max()));
    // Gavel runs the job type's command, hence its batch size, on each of the
    // scale_factor workers, and counts total_steps over all workers together
    // (its scheduler gives each worker an equal share of a round's steps). One
    // synchronous step of the whole job is therefore scale_factor worker steps
    // of the per-worker batch. A family without a batch size (CycleGAN, A3C)
    // runs its script's default batch, the catalog's default_local_batch.
    const std::int64_t per_worker = type.batch > 0 ? type.batch : model->default_local_batch;
    const std::int64_t global_batch = per_worker * job.gpus;
    if (global_batch > std::numeric_limits<int>::max())
      throw RowError{"batch size " + std::to_string(per_worker) + " x scale_factor " +
                     std::to_string(job.gpus) + " overflows the global batch"};
    job.global_batch = static_cast<int>(global_batch);
    job.iterations = (worker_steps + job.gpus - 1) / job.gpus;  // rounded up: no work is lost
    return job;
  }

 private:
  Layout layout_;
};

bool looks_like_gavel_line(std::string_view line) {
  return layout_of(line).has_value();
}

std::unique_ptr<LineParser> make_gavel_parser(std::string_view first_line) {
  const auto layout = layout_of(first_line);
  if (!layout)
    throw RowError{
        "first line is not a Gavel trace row (7 or 10 tab-separated fields with integer total_steps "
        "and scale_factor and a numeric arrival_time)"};
  return std::make_unique<GavelParser>(*layout);
}

const TraceFormatRegistration kGavel({
    .name = "gavel",
    .position = 80,
    .trace = "Gavel's Philly-derived `.trace` files (§2.4)",
    .detected_by = "7 or 10 tab-separated fields whose `total_steps` and `scale_factor` are integers and "
                   "`arrival_time` a number",
    .section = "gavel",
    .claims_first_line = claim_when<looks_like_gavel_line>,
    .line_parser = make_gavel_parser,
    .headerless = true,
});

}  // namespace
}  // namespace vnsim::traces_detail
