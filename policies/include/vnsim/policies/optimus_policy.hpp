#pragma once
// Optimus (EuroSys'18) as the Pollux simulator runs it ("Optimus+Oracle",
// petuum/adaptdl osdi21-artifact simulator/optimus.py). Every round: each active job gets one GPU in arrival
// order while GPUs remain; then GPUs go one at a time to the job whose
// estimated remaining time drops the most,
//   gain_j = remaining_iterations_j x (t_j(K) - t_j(K + 1)),
// while the gain is positive. t_j(K) is the iteration time of the job's own
// (fixed) global batch on K GPUs packed on the fewest nodes
// (GoodputEstimator::fixed_batch). A job whose GPU count is unchanged keeps
// its GPUs; the others are packed, smallest first, onto the nodes with the
// most free GPUs and restart from a checkpoint.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/policies/goodput_estimator.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct OptimusParams {
  double interval_s = 60;  // Pollux simulator's --interval
  int max_gpus_per_job = 64;
};

class OptimusPolicy : public Policy {
 public:
  explicit OptimusPolicy(OptimusParams params = {});
  std::string name() const override { return "optimus"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;

  // The GPU counts the greedy gives, by position in `jobs`, for `gpus` GPUs
  // with `gpus_per_node` per node (exposed for tests).
  struct Candidate {
    const JobSpec* spec;
    double remaining_iterations;
  };
  std::vector<int> allocate(const std::vector<Candidate>& jobs, int gpus, int gpus_per_node,
                            const std::string& gpu_type);

  GoodputEstimator& estimator() { return estimator_; }

 private:
  struct Memo {
    double remaining_iterations = -1;  // -1 until first seen
    double iteration_s = 0;            // estimate in its current allocation; 0 when not running
    double last_update_s = 0;
  };
  Memo& memo(JobIndex job);

  OptimusParams params_;
  GoodputEstimator estimator_;
  std::vector<Memo> memos_;
  double next_round_s_ = -std::numeric_limits<double>::infinity();
};

}  // namespace vnsim
