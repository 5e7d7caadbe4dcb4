#pragma once
// Themis finish-time fairness (Mahajan et al., NSDI'20). rho = T_shared / T_alone,
// T_alone = the job's alone run time x demand / min(N_gpus / contention,
// demand) (a fair 1/contention share), T_shared = (now - submit) + its
// estimated remaining time. A job holds its GPUs for a lease; when leases
// expire (and whenever GPUs are free) the free and expiring GPUs are
// auctioned: first among the (1 - f) fraction of contending jobs with the
// worst rho, then the rest, work-conserving. Inside the first group the
// greedy auction picks by the rise in log(1/rho) a job avoids by running
// this lease, per GPU: the proportional-fairness (Nash) objective Themis'
// arbiter maximises, for gang jobs that either get their demand or nothing.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct ThemisParams {
  double fairness_knob = 0.8;  // f; the Themis paper's default as recalled, not checked in the paper
  double lease_s = 600;        // ~10 min lease, as recalled from the paper, not checked
  // Leases end on the common grid of multiples of lease_s, at the point
  // nearest to a lease_s lease (so a lease lasts lease_s / 2 to 3 lease_s / 2,
  // lease_s on average): every lease ending in a period is auctioned in one
  // round, as the round-based simulations of Themis do (Gavel, Narayanan et
  // al. OSDI'20: its simulator reallocates every job in rounds of
  // time_per_iteration = 360 s, finish-time fairness included; Sia, SOSP'23,
  // compares against Themis run in 360-s rounds). Off: each lease ends
  // lease_s after it began, so N running jobs hold N auctions per lease
  // period (docs/PERFORMANCE_HISTORY.md, "Ring engines: fluid rings by
  // default (issue 21)", "Themis and Optimus on the 10k heavy trace").
  bool aligned_leases = true;
  std::string placement = "consolidated";
  std::uint64_t seed = 0;
};

class ThemisPolicy : public Policy {
 public:
  explicit ThemisPolicy(ThemisParams params = {});
  std::string name() const override { return "themis"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;

  // rho of a job that has waited/run `elapsed_s` since submission, with
  // `remaining_s` left of an `alone_s` run at `gpus` GPUs, on a cluster of
  // `cluster_gpus` GPUs shared by `contention` jobs.
  static double rho(double elapsed_s, double remaining_s, double alone_s, int gpus, int cluster_gpus,
                    int contention);
  // Bids put in auction order so far: only as many as the GPUs left to give
  // can take, not the whole queue (docs/PERFORMANCE_HISTORY.md).
  std::size_t ranked_bids() const { return ranked_bids_; }
  // Calls that held an auction: none when no queued job fits the GPUs the
  // leased jobs leave (docs/PERFORMANCE_HISTORY.md).
  std::size_t auctions() const { return auctions_; }
  // rho() evaluations: one per bid, and one more (rho after waiting a
  // lease) only for the first round's bids the GPUs left can take
  // (docs/PERFORMANCE_HISTORY.md).
  std::size_t rho_evaluations() const { return rho_evaluations_; }

 private:
  struct JobMemo {
    double alone_s = -1;  // estimated run time alone, from the first estimate seen
    double lease_end_s = -1;
  };
  JobMemo& memo(JobIndex job);
  // When a lease granted or renewed at `now_s` ends.
  double lease_end(double now_s) const;
  double counted_rho(double elapsed_s, double remaining_s, double alone_s, int gpus, int cluster_gpus,
                     int contention);

  ThemisParams params_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::vector<JobMemo> memos_;
  double next_lease_end_s_ = std::numeric_limits<double>::infinity();
  std::size_t ranked_bids_ = 0;
  std::size_t auctions_ = 0;
  std::size_t rho_evaluations_ = 0;
};

}  // namespace vnsim
