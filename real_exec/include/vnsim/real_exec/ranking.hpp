#pragma once
// Do the simulator and the testbed order policies the same way? Validating
// several runs of one trace (one per policy) compares the policies' mean
// JCT ordering with Kendall's tau-b (docs/VALIDATION.md, "Policy ranking").
#include <optional>
#include <string>
#include <vector>

namespace vnsim::real_exec {

struct KendallTau {
  int concordant = 0;
  int discordant = 0;
  int tied_x = 0;     // pairs tied in x only
  int tied_y = 0;     // pairs tied in y only
  int tied_both = 0;  // pairs tied in both
  // tau-b = (C - D) / sqrt((C + D + Tx) (C + D + Ty)); absent when either
  // ordering has no untied pair (fewer than 2 items, or all equal).
  std::optional<double> tau;
};
// Exact equality is a tie: the values compared are means of measured or
// simulated times, so a tie means the same schedule, not noise.
KendallTau kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);

struct PolicyMeans {
  std::string policy;
  double measured_mean_jct_s = 0;
  double predicted_mean_jct_s = 0;
};
struct PolicyRanking {
  std::vector<std::string> measured_order;  // best (lowest mean JCT) first; ties keep input order
  std::vector<std::string> predicted_order;
  KendallTau tau;
  bool agree = false;  // no pair ordered differently or tied on one side only
};
PolicyRanking rank_policies(const std::vector<PolicyMeans>& runs);

}  // namespace vnsim::real_exec
