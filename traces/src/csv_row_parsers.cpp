// Row parsers of the two Pollux CSV formats (docs/TRACES.md).
#include <limits>

#include "row_parsers.hpp"
#include "text_fields.hpp"

namespace vnsim::traces_detail {
namespace {

std::vector<std::string_view> expect_fields(std::string_view line, std::size_t count) {
  auto fields = split_commas(line);
  if (fields.size() != count)
    throw RowError{"expected " + std::to_string(count) + " comma-separated fields, found " +
                   std::to_string(fields.size())};
  return fields;
}

double non_negative_number(std::string_view field, const char* column) {
  const auto v = parse_finite_double(field);
  if (!v) throw RowError{std::string(column) + " '" + std::string(trim(field)) + "' is not a number"};
  if (*v < 0) throw RowError{std::string(column) + " " + std::string(trim(field)) + " is negative"};
  return *v;
}

int positive_int(std::string_view field, const char* column) {
  const auto v = parse_integer(field);
  if (!v) throw RowError{std::string(column) + " '" + std::string(trim(field)) + "' is not an integer"};
  if (*v < 1) throw RowError{std::string(column) + " " + std::to_string(*v) + " is < 1"};
  if (*v > std::numeric_limits<int>::max())
    throw RowError{std::string(column) + " " + std::to_string(*v) + " is too large"};
  return static_cast<int>(*v);
}

}  // namespace

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

std::optional<std::string> format_of_first_line(std::string_view line) {
  if (line == kPolluxPhillyHeader) return "pollux-philly";
  if (line == kPolluxWorkloadHeader) return "pollux-workload";
  const auto first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && line[first] == '{') return "jsonl";
  return std::nullopt;
}

}  // namespace vnsim::traces_detail
