#pragma once
// GPU sharing: the fraction of its isolated throughput a job keeps when it
// shares one GPU with another job, per GPU type and pair of job families.
// Embedded from core/data/interference.json, derived from Gavel's measured
// pair throughputs by scripts/derive_interference.py (docs/HETEROGENEITY.md,
// "GPU sharing"). Families are those of throughput_profile.hpp.
#include <map>
#include <string>

namespace vnsim {

class InterferenceTable {
 public:
  static const InterferenceTable& builtin();
  static InterferenceTable parse(const std::string& json_text, const std::string& source_name);

  // Throughput fraction of a `family` job sharing a `gpu_type` GPU with a
  // `partner` job: Gavel's measurement when there is one (0 = the pair does
  // not fit on one GPU), else default_fraction().
  double fraction(const std::string& gpu_type, const std::string& family, const std::string& partner) const;
  bool measured(const std::string& gpu_type, const std::string& family, const std::string& partner) const;
  double default_fraction() const { return default_fraction_; }

 private:
  const double* find(const std::string& gpu_type, const std::string& family,
                     const std::string& partner) const;
  // type -> family -> partner -> fraction
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> table_;
  double default_fraction_ = 1.0;
};

}  // namespace vnsim
