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
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
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
  // Rounds computed in full so far; a round whose jobs and placements are
  // those of a quiet round (below) and whose gains still put every GPU the
  // greedy gave there ahead of every step it did not give is not computed
  // again.
  std::size_t full_rounds() const { return full_rounds_; }
  // Off: every round is computed in full (for tests that compare the two).
  void skip_quiet_rounds(bool on) { skip_quiet_rounds_ = on; }

 private:
  struct Memo {
    double remaining_iterations = -1;  // -1 until first seen
    double iteration_s = 0;            // estimate in its current allocation; 0 when not running
    double last_update_s = 0;
    // A kept job's estimate on its GPUs: count, type and the times_
    // generation it was asked for.
    int kept_k = 0;
    int kept_type = -1;
    std::size_t kept_generation = 0;
    double kept_iteration_s = 0;
  };
  Memo& memo(JobIndex job);
  void count_progress(Memo& m, double now) const;
  bool quiet_unchanged(const SchedulerInput& input) const;
  bool quiet_gains_pick_the_same() const;
  void remember_if_quiet(const SchedulerInput& input, const std::vector<JobIndex>& index, bool decided);

  // A job's iteration time on n GPUs (index n; -1 not yet asked) and its
  // GPU limit, asked again every round and fixed for the run's topology:
  // asking the estimator (string-keyed caches) was most of a round's cost.
  struct JobTimes {
    int limit = -1;
    std::vector<double> iteration_s;
  };

  OptimusParams params_;
  GoodputEstimator estimator_;
  // Valid for one topology, GPU type and node size (set by decide(); a
  // direct allocate() call outside decide() asks the estimator).
  const Topology* times_topology_ = nullptr;
  std::string times_type_;
  int times_per_node_ = 0;
  std::unordered_map<const JobSpec*, JobTimes> times_;
  std::size_t times_generation_ = 0;  // bumped when times_ is cleared
  std::vector<Memo> memos_;
  double next_round_s_ = -std::numeric_limits<double>::infinity();
  std::size_t full_rounds_ = 0;
  std::vector<char> data_parallel_;  // by job index: checked runnable (data_parallel_jobs.hpp)
  // A gain the last allocate() pushed: job at `pos`, from k to k + 1 GPUs,
  // whose iteration time drops by `drop`; `popped` when the greedy gave
  // that GPU.
  struct PushedGain {
    std::size_t pos;
    int k;
    double drop;
    bool popped;
  };
  std::vector<PushedGain> pushed_;
  // A quiet round: the last full round, which decided nothing. Its queue,
  // running jobs and placements, and its pushed gains.
  struct QuietGain {
    JobIndex job;
    std::size_t pos;
    int k;
    double drop;
    bool popped;
  };
  bool skip_quiet_rounds_ = true;
  bool quiet_ = false;
  std::vector<JobIndex> quiet_queued_;
  std::vector<JobIndex> quiet_running_;
  std::vector<GpuId> quiet_gpus_;            // the running jobs' GPUs, one after another
  std::vector<std::size_t> quiet_gpus_end_;  // where each running job's GPUs end in quiet_gpus_
  std::vector<QuietGain> quiet_gains_;
};

}  // namespace vnsim
