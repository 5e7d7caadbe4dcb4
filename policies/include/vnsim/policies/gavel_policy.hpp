#pragma once
// Gavel (Narayanan et al., OSDI'20; scheduler/scheduler.py for the round
// mechanism): a heterogeneity-aware allocation X[job][GPU type]
// from an LP (gavel_lp.hpp), turned into who-runs-where by the round
// mechanism. Every round (360 s) each job m gets priority X[m][j] /
// fraction[m][j] on type j, fraction being its share of the time type j has
// given out since the last reset; jobs are picked greedily by priority while
// their GPUs fit in the type, and running jobs not picked are preempted.
// Between rounds, GPUs freed by completions are filled, without preemption,
// with the highest-priority queued jobs (docs/POLICIES.md, "Gavel").
// With space sharing, pairs of jobs chosen by the LP take the same GPUs,
// half of each, and are picked by priority alongside single jobs.
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/policies/gavel_lp.hpp"
#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

class TypeThroughput;

enum class GavelObjective { MaxMinFairness, FinishTimeFairness, Makespan };
// "max_min_fairness" | "finish_time_fairness" | "makespan"; throws InputError.
GavelObjective gavel_objective_from_string(const std::string& text);

struct GavelParams {
  GavelObjective objective = GavelObjective::MaxMinFairness;
  double round_s = 360;   // Gavel scheduler.py time_per_iteration
  double reset_s = 1920;  // minimum_time_between_allocation_resets
  std::string placement = "consolidated";
  std::uint64_t seed = 0;
  bool space_sharing = false;  // with any objective
  int partners_per_class = 4;  // GavelSharing::partners_per_class
  // A round that provably keeps every job where it is (gavel_quiet.cpp) only
  // moves the time counters; false: every round is run in full.
  bool skip_unchanged = true;
};

class GavelPolicy : public Policy {
 public:
  explicit GavelPolicy(GavelParams params = {});
  ~GavelPolicy() override;
  std::string name() const override { return "gavel"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;

  // The allocation of the last LP solve, by job index (empty rows: job not in it).
  const std::vector<double>& allocation_of(JobIndex job) const;
  // With space sharing: X of the pair (a, b) on each type at the last solve
  // (empty when the LP did not pair them).
  std::vector<double> pair_allocation_of(JobIndex a, JobIndex b) const;
  // LP solves so far: a round whose job set is the last solve's solves none.
  std::size_t solve_count() const { return solves_; }
  // (job, type) picks the last call took in priority order: between rounds
  // only queued jobs that fit in the GPUs free now are candidates, a pick
  // wider than its type's room is passed over untaken (gavel_picks.hpp), and
  // a round or a fill stops once no type has room for the narrowest job.
  std::size_t ranked_in_last_call() const { return ranked_; }
  // Gavel reads no running job's attained service or remaining time.
  bool reads_running_progress() const override { return false; }
  // Per-type time counters set to the pseudo-count so far (a job's first
  // call, and each job active at or after a reset): jobs gone before a
  // reset are never renewed.
  std::size_t time_counter_renewals() const { return renewals_; }
  // Running jobs whose time counters were brought up to date so far: each
  // at a round, and one between rounds only when that job itself changed
  // (gavel_accounting.cpp), never a walk of every running job per event.
  std::size_t counter_settles() const { return settles_; }
  // Rounds that kept every job without ranking them (gavel_quiet.cpp).
  std::size_t skipped_rounds() const { return skipped_rounds_; }
  // Kept rounds still held for running jobs to replay: none once a ranked
  // round or a fill's sums have caught every running job up
  // (gavel_kept.cpp), so the log does not grow with the run.
  std::size_t kept_rounds_held() const { return kept_rounds_.size(); }
  // The job's time per type since the last reset, as settled so far: a
  // running job's kept rounds are replayed at its next use (gavel_kept.cpp),
  // so this is as of its last settle, the same as a full round's once a
  // ranked round, a fill or a change has settled it.
  std::vector<double> time_counters_of(JobIndex job) const;
  // Per type, the time the active jobs have received up to `now`: the
  // denominators a fill ranks queued jobs with (summed again first when a
  // kept round left the sums to be rebuilt, gavel_kept.cpp).
  std::vector<double> type_time_totals(double now);

 private:
  enum class JobState : unsigned char { None, Queued, Running };
  static constexpr std::size_t kUntracked = std::numeric_limits<std::size_t>::max();
  struct JobMemo {
    std::vector<double> x;          // X row from the last solve
    std::vector<double> time_s;     // time received per type since the last reset, settled to from_s
    double accounted_until_s = -1;  // running time counted up to here
    // As the policy last saw the job (gavel_accounting.cpp). Running: the
    // type it runs on (-1: none of the cluster's), its start, its space-
    // sharing partner, its steps/s there and the time its counters are
    // settled to.
    JobState state = JobState::None;
    const JobSpec* spec = nullptr;
    int run_type = -1;
    double run_start_s = 0;
    JobIndex run_partner = std::numeric_limits<JobIndex>::max();
    double run_rate = 0;
    double from_s = 0;
    std::size_t tracked = kUntracked;  // position in tracked_
    std::uint64_t seen_in_call = 0;    // a full read's mark
    GpuTypeMask allowed = kAnyGpuType;
    double steps_done = 0;      // estimated from time run x the type's throughput
    double isolated_rate = 0;   // steps/s on the isolated 1/M share, at the last solve
    double isolated_cum_s = 0;  // FTF: time the done steps would take at the isolated share
    // The job's throughput row for `row_allowed`, computed once: every call
    // needs it for every active job, and looking it up by model name cost
    // more than the round itself on long queues (docs/PERFORMANCE_HISTORY.md).
    std::vector<double> row;
    GpuTypeMask row_allowed = 0;
    int planned_type = -1;       // as in planned_, for fill() to look up per job
    std::size_t reset_seen = 0;  // resets_ when time_s was last renewed
    // stamp_ when it last became active (kept while it returns to the last
    // solve's set) and when it last left (gavel_quiet.cpp, in_last_solve).
    std::uint64_t track_stamp = 0, leave_stamp = 0;
    // Kept rounds (kept_rounds_) settled to: those from here on are replayed
    // at the job's next use (gavel_kept.cpp). At the last one replayed, the
    // counter and from_s that round summed (kept_mark: its position).
    std::size_t kept_seen = 0;
    std::size_t kept_mark = kUntracked;
    double kept_time_s = 0, kept_from_s = 0;
  };
  struct Active {
    JobIndex index;
    const JobSpec* spec;
    const RunningJob* running;  // nullptr when queued
    // The job's memo row (JobMemo::row), not a copy: a round reads it for
    // every active job, and copying it allocated once per job per round.
    std::span<const double> throughput;
  };

  JobMemo& memo(JobIndex job);
  const std::vector<double>& row_of(const Topology& topology, const JobSpec& spec, JobMemo& m);
  // gavel_accounting.cpp
  void init_counters(JobMemo& m);
  void add_to_totals(const JobMemo& m, double sign);
  void settle(JobMemo& m, JobIndex job, double now);
  double advance(JobMemo& m, JobIndex job, double now);
  void add_to_sum(std::vector<double>& sum, std::vector<double>& adds, std::size_t type, double value);
  void track(JobMemo& m, JobIndex job);
  void leave(JobIndex job, double now);
  void observe(JobIndex job, const QueuedJob* q, const RunningJob* r, const SchedulerInput& input,
               std::vector<Decision>& out);
  void read_input(const SchedulerInput& input, std::vector<Decision>& out);
  void settle_all(const SchedulerInput& input);
  void recount_totals();
  std::vector<double> type_time_now(double now);
  void solve(const SchedulerInput& input, double now, const std::vector<Active>& active);
  std::vector<double> total_time_per_type(const std::vector<Active>& active, int types) const;
  // Into `out` (one per type), reused across jobs to spare an allocation each.
  void priorities(const Active& a, const std::vector<double>& type_time, std::vector<double>& out) const;
  void add_sharing(const SchedulerInput& input, const std::vector<Active>& active, GavelProblem& p) const;
  struct PairPick {
    double priority;
    double x;
    std::size_t pos, partner_pos;  // in `active`
    int type;
    double rate;  // the first job's steps/s in the pair
  };
  std::vector<PairPick> pair_picks(const std::vector<Active>& active,
                                   const std::vector<double>& type_time) const;
  std::vector<double> pair_time_per_type(const std::vector<Active>& active, int types) const;
  JobIndex partner_of(const ClusterView& view, const RunningJob& r) const;
  double pair_fraction(const Cluster& cluster, int type, const JobSpec& a, const JobSpec& b) const;
  std::vector<double>& pair_time(JobIndex a, JobIndex b, int types);
  std::optional<std::vector<GpuId>> place_pair(FreeGpus& free, const Active& a, const Active& b, int type);
  std::vector<Decision> round(const SchedulerInput& input, const std::vector<Active>& active);
  // gavel_quiet.cpp
  bool in_last_solve(const JobMemo& m) const;
  void note_solved();
  bool start_reset(double now);
  void maybe_reset(double now);
  bool round_keeps_everyone() const;
  void keep_everyone(const SchedulerInput& input);
  void solve_pending(const SchedulerInput& input);
  // gavel_kept.cpp
  void catch_up(JobMemo& m, JobIndex job);
  void keep_counters(double now, bool reset);
  void note_tracked(JobIndex job, std::size_t pos, bool left);
  void rebuild_sums();
  std::size_t kept_end() const { return kept_base_ + kept_rounds_.size(); }
  void forget_replayed_rounds();
  std::vector<Decision> fill(const SchedulerInput& input);
  std::optional<Placement> place(FreeGpus& free, const Active& a, int type);

  GavelParams params_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::unique_ptr<TypeThroughput> throughput_;
  std::vector<JobMemo> memos_;
  std::vector<std::pair<JobIndex, int>> planned_;  // moved at the last round: (job, new type)
  // Space sharing, by job pair (lower index first): X per type from the last
  // solve, and the time run together per type since the last reset.
  std::map<std::pair<JobIndex, JobIndex>, std::vector<double>> pair_x_;
  std::map<std::pair<JobIndex, JobIndex>, std::vector<double>> pair_time_;
  double next_round_s_ = -std::numeric_limits<double>::infinity();
  double last_reset_s_ = 0;
  std::size_t solves_ = 0;
  std::size_t ranked_ = 0;
  std::size_t resets_ = 0;  // resets of the per-type time counters so far
  std::size_t renewals_ = 0;
  std::uint64_t calls_ = 0;
  std::size_t settles_ = 0;
  std::size_t types_ = 0;  // the cluster's GPU types
  // The active jobs not in the last solve's set plus those of that set not
  // active (track() and leave() keep it): 0 when the set is the active one,
  // known without sorting the active jobs. The set is the jobs active at
  // solved_stamp_ (in_last_solve).
  std::size_t unsolved_ = 0;
  std::uint64_t stamp_ = 1, solved_stamp_ = 0;
  // Active jobs running alone on a type with a throughput > 0 there.
  std::size_t kept_alone_ = 0;
  // A solve a kept round put off (max-min fairness reads only the jobs'
  // rows and widths): its jobs in order, and its time.
  bool pending_ = false;
  std::vector<JobIndex> pending_order_;
  double pending_now_ = 0;
  std::size_t skipped_rounds_ = 0;
  // The active jobs (queued or running, not rejected), in no order; the
  // queued ones by (GPUs, index) for fill() to reach only those that fit.
  std::vector<JobIndex> tracked_;
  std::set<std::pair<int, JobIndex>> queued_by_gpus_;
  // Per type: the settled counters of the active jobs, and the jobs running
  // alone there with the sum of their from_s (type_time_now).
  std::vector<double> stored_time_, accruing_, accruing_from_;
  // Kept rounds so far, in order, each job replaying those after its
  // kept_seen (gavel_kept.cpp): the round's time, and whether it reset the
  // counters (to resets_ of then).
  struct KeptRound {
    double now_s;
    std::size_t resets;
    bool reset;
  };
  std::vector<KeptRound> kept_rounds_;
  // Kept rounds forgotten before kept_rounds_[0]: a memo's kept_seen and
  // kept_mark count from the run's first kept round (kept_end()).
  std::size_t kept_base_ = 0;
  // After a kept round, until a round or a fill sums them again: the sums
  // of the one GPU type are the last kept round's sum over the active jobs
  // then, in tracked_'s order then (tracked_ now, with tracked_log_'s
  // changes undone), plus stored_adds_ and from_adds_ in order.
  bool sums_stale_ = false;
  std::vector<double> stored_adds_, from_adds_;
  struct TrackedChange {
    JobIndex job;
    std::size_t pos;
    bool left;  // taken from pos (the last job moved there); else appended at pos
  };
  std::vector<TrackedChange> tracked_log_;
  bool want_timer_ = false;
  std::vector<char> data_parallel_;  // by job index: checked runnable (data_parallel_jobs.hpp)
};

}  // namespace vnsim
