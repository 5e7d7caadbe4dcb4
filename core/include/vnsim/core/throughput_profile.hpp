#pragma once
// Offline throughput profiles for the heterogeneous split: per job family and
// GPU type, samples/s against the per-GPU batch (VirtualFlow profiles each
// type once, offline). Embedded from core/data/throughput_profiles.json,
// which scripts/derive_throughput_profiles.py derives from Gavel's table
// (K80/P100/V100) and published A100/H100 ratios (docs/HETEROGENEITY.md).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/hetero_split.hpp"

namespace vnsim {

class ThroughputProfile {
 public:
  // Points (batch, samples/s), batches strictly increasing.
  explicit ThroughputProfile(std::vector<std::pair<int, double>> points);

  int max_batch() const { return points_.back().first; }
  // Seconds per step of m samples: linear in between profiled batches, the
  // smallest batch's time below it. Never decreases with m: a profiled point
  // faster than a smaller batch is raised to that batch's time (Gavel's table
  // has such inversions, e.g. ResNet-18 on K80). Throws above max_batch().
  double step_s(double m) const;
  // A split group of `gpus` GPUs of this profile, capped at max_batch().
  GpuTypeGroup group(const std::string& type, int gpus) const;

 private:
  std::vector<std::pair<int, double>> points_;  // (batch, step seconds), monotone
};

class ThroughputProfiles {
 public:
  static const ThroughputProfiles& builtin();
  static ThroughputProfiles parse(const std::string& json_text, const std::string& source_name);

  // nullptr when the family or type is not profiled.
  const ThroughputProfile* find(const std::string& family, const std::string& gpu_type) const;
  // The family a model-catalog name maps to, if any.
  std::optional<std::string> family_of_model(const std::string& model) const;
  std::vector<std::string> families() const;

 private:
  std::map<std::string, std::map<std::string, ThroughputProfile>> families_;
  std::map<std::string, std::string> model_family_;
};

}  // namespace vnsim
