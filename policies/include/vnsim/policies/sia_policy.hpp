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
//
// A round whose problem differs from the last solved one only by the
// restart factors (same jobs, configurations, restart counts and goodput
// epochs) keeps that round's answer while it is proven optimal up to a later
// time; docs/POLICIES.md, "Sia", "Unchanged rounds".
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "vnsim/policies/goodput_estimator.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/sia_ilp.hpp"

namespace vnsim {

struct TargetAllocation;  // allocation_plan.hpp

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
  bool certify_start = true;        // skip CBC where the start is proven optimal (sia_ilp.hpp)
  int search_nodes = 0;          // the start's search when the certificate falls short; 0: off (sia_ilp.hpp)
  bool exact_two_types = false;  // CBC rounds take the search's optimum (changes decisions; sia_ilp.hpp)
  bool reuse_standing = true;    // unchanged rounds keep the standing allocation while proven optimal
  bool skip_rounds = true;       // with reuse_standing: rounds that would decide nothing are not run
  bool start_from_running = true;  // CBC's start: the cheaper of the repair and the running allocation
  bool keep_within_gap = true;     // CBC rounds whose start is proven within relative_gap return it
  bool gap_search = true;          // with keep_within_gap: else search on to an answer within the gap
  bool own_bb = true;              // with gap_search: past its cap, our own branch and bound, not CBC
};

class SiaPolicy : public Policy {
 public:
  explicit SiaPolicy(SiaParams params = {});
  std::string name() const override { return "sia"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;
  void use_noise_profiles(const NoiseScaleCatalog& noise) override;

  // Restart cost S of a model in seconds (Sia simulator constants).
  static double restart_cost_s(const std::string& model);

  struct Chosen {
    std::string gpu_type;
    int gpus = 0;
    BatchChoice batch;
  };
  const std::map<JobIndex, Chosen>& last_round() const { return last_round_; }
  // How many allocation problems this policy has solved (solve_sia_ilp
  // calls, the optimality proofs of standing allocations included).
  std::size_t solve_count() const { return solves_; }

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
    // Looked up once per rows_generation_ (a topology or noise catalog):
    // the job's noise profile, its raw goodput row in rows_ and what that
    // was looked up by, its current configuration for the GPUs it held
    // last, and its batch choice in the configuration it was last given.
    std::size_t generation = 0;
    const NoiseScaleProfile* noise = nullptr;
    const std::vector<double>* row = nullptr;
    int row_epoch = 0;
    double row_progress = 0;
    double epoch_progress = -1;  // the progress row_epoch is the epoch of
    bool priced = false;         // checked to be a job this policy can price
    std::vector<GpuId> placed_on;
    int placed_config = -1;
    int choice_config = -1;
    const std::vector<double>* choice_row = nullptr;
    BatchChoice choice;
  };
  Memo& memo(JobIndex job);
  const std::vector<double>& raw_row(const JobSpec& spec, Memo& m, const std::vector<SiaConfig>& configs,
                                     const std::vector<std::string>& types);
  void forget_rows();

  // What a round's problem is made of, but for the restart factors (which
  // grow with the jobs' ages): two rounds with equal keys differ only there.
  struct JobKey {
    JobIndex job = 0;
    int current = -1;  // current configuration; -1 queued
    int restarts = 0;
    const std::vector<double>* row = nullptr;
    bool operator==(const JobKey&) const = default;
  };

  SiaParams params_;
  GoodputEstimator estimator_;
  std::vector<Memo> memos_;
  std::map<JobIndex, Chosen> last_round_;
  // Raw goodput rows by (model, spec batch, epoch, progress when the
  // estimate depends on it continuously); valid for one topology.
  std::map<std::tuple<std::string, int, int, double>, std::vector<double>> rows_;
  const Topology* rows_topology_ = nullptr;
  std::size_t rows_generation_ = 1;
  // The standing allocation: the last solved round's keys and answer,
  // whether that answer's cost is fixed in time (every running job keeps
  // its configuration or stops), up to when it is proven optimal, and the
  // next proof's look-ahead.
  std::vector<JobKey> standing_;
  std::vector<int> standing_answer_;
  bool standing_fixed_ = false;
  double proven_until_s_ = -std::numeric_limits<double>::infinity();
  double horizon_s_ = 0;
  std::size_t solves_ = 0;
  // Skipped rounds: after a round that decided nothing, the rounds before
  // skip_to_s_ (the first one the standing proof or an epoch change does not
  // cover) are not run while the input stays the one recorded here.
  double skip_to_s_ = -std::numeric_limits<double>::infinity();
  std::vector<JobIndex> skip_jobs_;
  std::vector<GpuId> skip_gpus_;
  bool same_input(const SchedulerInput& input) const;
  void record_input(const SchedulerInput& input);
  // One job's share of the round's answer: `config` (an index of
  // `configs`, -1 for none) held on its GPUs (`keeps`), on `where`, or none.
  struct JobTarget {
    JobIndex index;
    const JobSpec* spec;
    const RunningJob* running;  // nullptr: queued
    const std::vector<SiaConfig>& configs;
    int config;
    const std::string& type;  // the configuration's GPU type
    bool keeps;
    const std::vector<std::pair<NodeId, int>>* where;  // a move's or start's GPUs per node
  };
  // What the answer means for the job (keep it, perhaps at a new batch;
  // move or start it; stop it), added to `targets`, and its estimates.
  void target_job(const Cluster& cluster, const JobTarget& job, double now,
                  std::vector<TargetAllocation>& targets);
  // After a round that decided nothing on a proven standing answer: the
  // rounds to skip (skip_rounds), up to the proof's end or the first round
  // at which a running job's progress may enter another epoch.
  void skip_unchanged_rounds(const SchedulerInput& input, const std::vector<JobIndex>& running_jobs,
                             double now);
  double next_round_s_ = -std::numeric_limits<double>::infinity();
};

}  // namespace vnsim
