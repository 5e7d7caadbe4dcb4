// One JobSpec per line of JSON (docs/TRACES.md, "jsonl"). Every field is
// checked for type and range, and unknown fields are refused so that a typo
// ("gpu" for "gpus") is reported instead of silently defaulted.
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "row_parsers.hpp"
#include "trace_format.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/transformer_models.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim::traces_detail {
namespace {

using nlohmann::json;

const std::set<std::string, std::less<>>& known_fields() {
  static const std::set<std::string, std::less<>> fields = {"id",
                                                            "submit_s",
                                                            "model",
                                                            "gpus",
                                                            "virtual_nodes",
                                                            "global_batch",
                                                            "iterations",
                                                            "gpu_type",
                                                            "status",
                                                            "trace_duration_s",
                                                            "vc",
                                                            "user",
                                                            "tp",
                                                            "pp",
                                                            "micro_batch_size",
                                                            "gpu_milli",
                                                            "ps_servers",
                                                            "ps_mode",
                                                            "straggler_probability",
                                                            "straggler_min_slowdown",
                                                            "straggler_max_slowdown",
                                                            "straggler_seed"};
  return fields;
}

std::string string_field(const json& v, const std::string& key) {
  if (!v.is_string()) throw RowError{"field '" + key + "' must be a string"};
  return v.get<std::string>();
}

double number_field(const json& v, const std::string& key) {
  if (!v.is_number()) throw RowError{"field '" + key + "' must be a number"};
  const double x = v.get<double>();
  if (x < 0) throw RowError{"field '" + key + "' is negative"};
  return x;
}

std::int64_t integer_field(const json& v, const std::string& key, std::int64_t min, std::int64_t max) {
  if (!v.is_number_integer()) throw RowError{"field '" + key + "' must be an integer"};
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
    throw RowError{"field '" + key + "' is too large"};
  const auto x = v.get<std::int64_t>();
  if (x < min) throw RowError{"field '" + key + "' must be >= " + std::to_string(min)};
  if (x > max) throw RowError{"field '" + key + "' is too large"};
  return x;
}

// Ranges that do not depend on the cluster are row errors; whether the job
// has a worker left is checked at submission (ps_servers < gpus).
void parse_parameter_server_fields(const json& obj, ParameterServerSpec& ps) {
  constexpr auto kIntMax = static_cast<std::int64_t>(std::numeric_limits<int>::max());
  if (obj.contains("ps_servers"))
    ps.servers = static_cast<int>(integer_field(obj.at("ps_servers"), "ps_servers", 0, kIntMax));
  if (obj.contains("ps_mode")) {
    const std::string mode = string_field(obj.at("ps_mode"), "ps_mode");
    if (mode != "sync" && mode != "async")
      throw RowError{"field 'ps_mode' must be \"sync\" or \"async\", got \"" + mode + "\""};
    ps.async = mode == "async";
  }
  if (obj.contains("straggler_probability")) {
    ps.straggler_probability = number_field(obj.at("straggler_probability"), "straggler_probability");
    if (ps.straggler_probability > 1) throw RowError{"field 'straggler_probability' must be in [0, 1]"};
  }
  if (obj.contains("straggler_min_slowdown"))
    ps.straggler_min_slowdown = number_field(obj.at("straggler_min_slowdown"), "straggler_min_slowdown");
  if (obj.contains("straggler_max_slowdown"))
    ps.straggler_max_slowdown = number_field(obj.at("straggler_max_slowdown"), "straggler_max_slowdown");
  if (!(ps.straggler_min_slowdown >= 1 && ps.straggler_max_slowdown >= ps.straggler_min_slowdown))
    throw RowError{"need 1 <= straggler_min_slowdown <= straggler_max_slowdown"};
  if (obj.contains("straggler_seed"))
    ps.straggler_seed = static_cast<std::uint64_t>(integer_field(
        obj.at("straggler_seed"), "straggler_seed", 0, std::numeric_limits<std::int64_t>::max()));
}

json parse_object(std::string_view line) {
  json obj;
  try {
    obj = json::parse(line.begin(), line.end());
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number that overflows
    // e.what() starts with "[json.exception.parse_error.101] parse error at line 1, ..."
    std::string what = e.what();
    const auto bracket = what.find("] ");
    throw RowError{"invalid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2))};
  }
  if (!obj.is_object()) throw RowError{"expected a JSON object"};
  return obj;
}

}  // namespace

JobSpec parse_jsonl_row(std::string_view line, const ModelCatalog& models) {
  const json obj = parse_object(line);
  for (const auto& [key, value] : obj.items())
    if (known_fields().count(key) == 0) throw RowError{"unknown field '" + key + "'"};
  for (const char* required : {"id", "submit_s", "gpus"})
    if (!obj.contains(required)) throw RowError{std::string("missing field '") + required + "'"};

  constexpr auto kIntMax = static_cast<std::int64_t>(std::numeric_limits<int>::max());
  JobSpec job;
  job.id = string_field(obj.at("id"), "id");
  if (job.id.empty()) throw RowError{"field 'id' is empty"};
  job.submit_s = number_field(obj.at("submit_s"), "submit_s");
  job.gpus = static_cast<int>(integer_field(obj.at("gpus"), "gpus", 1, kIntMax));
  // A share above one GPU is a reason the simulator gives (why_infeasible),
  // like every other request the cluster cannot meet.
  if (obj.contains("gpu_milli"))
    job.gpu_milli = static_cast<int>(integer_field(obj.at("gpu_milli"), "gpu_milli", 0, kIntMax));
  if (obj.contains("model")) {
    job.model = string_field(obj.at("model"), "model");
    if (!job.model.empty() && models.find(job.model) == nullptr &&
        find_transformer_model(job.model) == nullptr)
      throw RowError{"unknown model '" + job.model + "'", true};
  }
  if (obj.contains("virtual_nodes"))
    job.virtual_nodes = static_cast<int>(integer_field(obj.at("virtual_nodes"), "virtual_nodes", 0, kIntMax));
  if (obj.contains("global_batch"))
    job.global_batch = static_cast<int>(integer_field(obj.at("global_batch"), "global_batch", 0, kIntMax));
  if (obj.contains("iterations"))
    job.iterations =
        integer_field(obj.at("iterations"), "iterations", 0, std::numeric_limits<std::int64_t>::max());
  if (obj.contains("gpu_type")) {
    job.gpu_type = string_field(obj.at("gpu_type"), "gpu_type");
    if (job.gpu_type->empty()) throw RowError{"field 'gpu_type' is empty (leave it out for no constraint)"};
  }
  if (obj.contains("status")) {
    try {
      job.status = trace_status_from_string(string_field(obj.at("status"), "status"));
    } catch (const InputError& e) {
      throw RowError{e.what()};
    }
  }
  if (obj.contains("trace_duration_s"))
    job.trace_duration_s = number_field(obj.at("trace_duration_s"), "trace_duration_s");
  // Layout validity against the cluster is checked at submission (jobs.csv
  // reason), like every other cluster-dependent property.
  if (obj.contains("tp")) job.tp = static_cast<int>(integer_field(obj.at("tp"), "tp", 1, kIntMax));
  if (obj.contains("pp")) job.pp = static_cast<int>(integer_field(obj.at("pp"), "pp", 1, kIntMax));
  if (obj.contains("micro_batch_size"))
    job.micro_batch_size =
        static_cast<int>(integer_field(obj.at("micro_batch_size"), "micro_batch_size", 1, kIntMax));
  parse_parameter_server_fields(obj, job.ps);
  if (obj.contains("vc")) job.vc = string_field(obj.at("vc"), "vc");
  if (obj.contains("user")) job.user = string_field(obj.at("user"), "user");
  return job;
}

namespace {

class JsonlParser : public LineParser {
 public:
  JobSpec parse(std::string_view line, long /*line_number*/) const override {
    return parse_jsonl_row(line, ModelCatalog::builtin());
  }
};

const TraceFormatRegistration kJsonl({
    .name = "jsonl",
    .position = 30,
    .trace = "vnsim's own format: one JSON object per job, the fields of `JobSpec`",
    .detected_by = "starts with `{`",
    .section = "jsonl",
    .claims_first_line =
        [](std::string_view line) {
          const auto first = line.find_first_not_of(" \t");
          return first != std::string_view::npos && line[first] == '{' ? FirstLineMatch::Yes
                                                                       : FirstLineMatch::No;
        },
    .line_parser = [](std::string_view) -> std::unique_ptr<LineParser> {
      return std::make_unique<JsonlParser>();
    },
    .headerless = true,
    .trusts_unterminated_last_row = true,
});

}  // namespace
}  // namespace vnsim::traces_detail

namespace vnsim {

JobSpec parse_jsonl_line(std::string_view line, const ModelCatalog& models) {
  try {
    return traces_detail::parse_jsonl_row(line, models);
  } catch (const traces_detail::RowError& e) {
    throw InputError(e.reason);
  }
}

}  // namespace vnsim
