#pragma once
// Sia (Jayaram Subramanya et al., SOSP'23; siasosp23/artifacts
// sia-simulator/sia.py): heterogeneity- and goodput-aware elastic
// scheduling. Every round (60 s) each active job's goodput is estimated in
// every configuration (GPU type, GPU count): powers of two up to one node,
// then whole nodes (2, 3, ... up to max_nodes_per_job). Each row is
// normalised by its smallest non-zero entry, multiplied by the restart factor
// max(T - N S, 0) / (T + S) for configurations other than the job's current
// one (T = age, N = restarts so far, S = the model's restart cost), and the
// ILP of sia_ilp.hpp (COIN-OR CBC) picks at most one configuration per job.
// Batch size and accumulation are Pollux's goodput-optimal ones
// (core/goodput.hpp); jobs move by checkpoint-restart.
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/policies/goodput_estimator.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/sia_ilp.hpp"

namespace vnsim {

struct SiaParams {
  double interval_s = 60;              // Sia artifact round
  double p = -0.5;                     // Sia artifact exponent
  double no_allocation_penalty = 1.1;  // lambda_n
  int max_nodes_per_job = 16;
  int max_gpus_per_job = 64;
  double batch_change_gain = 0.05;  // in-place batch change only above this goodput gain
  double relative_gap = 1e-4;       // the artifact's MIP gap (GLPK via cvxpy); 0: optimal
  int max_bb_nodes = 100;           // CBC branch-and-bound nodes per round; 0: no limit (docs/POLICIES.md)
  bool knapsack = true;             // one GPU type: exact knapsack DP instead of CBC (sia_ilp.hpp)
};

class SiaPolicy : public Policy {
 public:
  explicit SiaPolicy(SiaParams params = {});
  std::string name() const override { return "sia"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;
  void use_noise_profiles(const NoiseScaleCatalog& noise) override { estimator_.use_noise_profiles(noise); }

  // Restart cost S of a model in seconds (Sia simulator constants).
  static double restart_cost_s(const std::string& model);

  struct Chosen {
    std::string gpu_type;
    int gpus = 0;
    BatchChoice batch;
  };
  const std::map<JobIndex, Chosen>& last_round() const { return last_round_; }

 private:
  struct Memo {
    bool seen = false;
    double progress = 0;
    double rate = 0;
    double last_update_s = 0;
    double no_progress_until_s = 0;
    int restarts = 0;
    int batch = 0;
    double iteration_s = 0;
  };
  Memo& memo(JobIndex job);

  SiaParams params_;
  GoodputEstimator estimator_;
  std::vector<Memo> memos_;
  std::map<JobIndex, Chosen> last_round_;
  double next_round_s_ = -std::numeric_limits<double>::infinity();
};

}  // namespace vnsim
