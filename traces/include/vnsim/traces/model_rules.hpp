#pragma once
// A model-assignment rule file (docs/TRACES.md, "Construction rules"): an
// ordered list of buckets; the first bucket that a job's GPU-hours and GPU
// count fit gives its model, chosen among the bucket's models by a hash of
// (seed, job id). Replaces the built-in Pollux-like rule of assign_work.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {

struct ModelBucket {
  std::optional<double> max_gpu_hours;  // job fits when gpu_hours < max (none: no bound)
  std::optional<int> max_gpus;          // job fits when gpus <= max (none: no bound)
  std::vector<std::string> models;      // catalog names, non-empty
};

struct ModelRules {
  std::string source;
  std::vector<ModelBucket> buckets;  // the last one has no bounds, so every job fits one

  // The model of a job of `gpu_hours` and `gpus`.
  std::string model_for(double gpu_hours, int gpus, std::uint64_t seed, const std::string& job_id) const;
};

// JSON: {"buckets": [{"max_gpu_hours": 1, "max_gpus": 1, "models": ["cifar10", "ncf"]}, ...]}.
// Throws InputError "<source>: <json path>: <reason>".
ModelRules parse_model_rules(const std::string& json_text, const std::string& source,
                             const ModelCatalog& models);
ModelRules load_model_rules_file(const std::string& path, const ModelCatalog& models);

// Gives a model to every job that has none and has a recorded duration.
void assign_models_by_rules(std::vector<JobSpec>& jobs, const ModelRules& rules, std::uint64_t seed);

}  // namespace vnsim
