// Model-assignment rule files (docs/TRACES.md, "Construction rules").
#include "vnsim/traces/model_rules.hpp"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "seeded_hash.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& path, const std::string& why) {
  throw InputError(source + ": " + path + ": " + why);
}

ModelBucket parse_bucket(const json& b, const std::string& source, const std::string& path,
                         const ModelCatalog& catalog) {
  if (!b.is_object()) fail(source, path, "must be an object");
  ModelBucket bucket;
  for (const auto& [key, value] : b.items()) {
    const std::string at = path + "." + key;
    if (key == "max_gpu_hours") {
      if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>()))
        fail(source, at, "must be a positive number");
      bucket.max_gpu_hours = value.get<double>();
    } else if (key == "max_gpus") {
      if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 1000000000)
        fail(source, at, "must be a positive integer");
      bucket.max_gpus = value.get<int>();
    } else if (key == "models") {
      if (!value.is_array() || value.empty()) fail(source, at, "must be a non-empty array of model names");
      for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string mat = at + "[" + std::to_string(i) + "]";
        if (!value[i].is_string()) fail(source, mat, "must be a string");
        const std::string name = value[i].get<std::string>();
        if (catalog.find(name) == nullptr) fail(source, mat, "unknown model '" + name + "'");
        bucket.models.push_back(name);
      }
    } else {
      fail(source, at, "unknown field (allowed: max_gpu_hours, max_gpus, models)");
    }
  }
  if (bucket.models.empty()) fail(source, path + ".models", "missing");
  return bucket;
}

}  // namespace

std::string ModelRules::model_for(double gpu_hours, int gpus, std::uint64_t seed,
                                  const std::string& job_id) const {
  for (const auto& b : buckets) {
    if (b.max_gpu_hours && !(gpu_hours < *b.max_gpu_hours)) continue;
    if (b.max_gpus && gpus > *b.max_gpus) continue;
    const std::uint64_t h = traces_detail::hash_seed_and_id(seed, job_id);
    return b.models[h % b.models.size()];
  }
  // parse_model_rules guarantees an unbounded last bucket.
  throw InputError(source + ": no bucket fits a job of " + std::to_string(gpu_hours) + " GPU-hours");
}

ModelRules parse_model_rules(const std::string& json_text, const std::string& source,
                             const ModelCatalog& models) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number that overflows
    throw InputError(source + ": invalid JSON: " + e.what());
  }
  if (!doc.is_object()) fail(source, "(top level)", "must be an object with a \"buckets\" array");
  for (const auto& [key, value] : doc.items())
    if (key != "buckets" && key != "description")
      fail(source, key, "unknown field (allowed: buckets, description)");
  if (!doc.contains("buckets") || !doc["buckets"].is_array() || doc["buckets"].empty())
    fail(source, "buckets", "must be a non-empty array");
  ModelRules rules;
  rules.source = source;
  const json& list = doc["buckets"];
  for (std::size_t i = 0; i < list.size(); ++i)
    rules.buckets.push_back(parse_bucket(list[i], source, "buckets[" + std::to_string(i) + "]", models));
  const ModelBucket& last = rules.buckets.back();
  if (last.max_gpu_hours || last.max_gpus)
    fail(source, "buckets[" + std::to_string(list.size() - 1) + "]",
         "the last bucket must have neither max_gpu_hours nor max_gpus, so that every job fits a bucket");
  return rules;
}

ModelRules load_model_rules_file(const std::string& path, const ModelCatalog& models) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open model rule file");
  std::stringstream text;
  text << f.rdbuf();
  return parse_model_rules(text.str(), path, models);
}

void assign_models_by_rules(std::vector<JobSpec>& jobs, const ModelRules& rules, std::uint64_t seed) {
  for (auto& job : jobs)
    if (job.model.empty() && job.trace_duration_s >= 0)
      job.model = rules.model_for(job.trace_duration_s * job.gpus / 3600.0, job.gpus, seed, job.id);
}

}  // namespace vnsim
