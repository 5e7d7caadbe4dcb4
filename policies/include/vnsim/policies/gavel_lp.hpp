#pragma once
// Gavel's allocation LPs (Gavel, Narayanan et al., OSDI'20,
// scheduler/policies/max_min_fairness.py, max_sum_throughput.py,
// finish_time_fairness.py), solved with COIN-OR CLP.
// X[m][j] is the fraction of wall time job m spends on GPU type j, using
// scale[m] GPUs of that type. Every objective shares Gavel's base
// constraints: 0 <= X <= 1, sum_j X[m][j] <= 1, sum_m scale[m] X[m][j] <= n_j.
// With space sharing (any objective), pairs of jobs sharing the same GPUs
// are further rows of X, as in Gavel's packing policies (a pair k = {m, m'}
// adds m's co-located rate times X[k][j] to m's throughput; docs/POLICIES.md "Gavel").
#include <cstddef>
#include <vector>

namespace vnsim {

// Space sharing: two jobs of the same scale on the same GPUs, each slowed by
// the interference table's fraction. Off when `family` is empty.
struct GavelSharing {
  std::vector<int> family;  // per job, an index into fraction's families; -1: never shares
  // fraction[j][f][g]: share of its alone rate a family-f job keeps next to a
  // family-g job on type j; 0 = the pair does not fit on one GPU.
  std::vector<std::vector<std::vector<double>>> fraction;
  // Candidate partners kept per class of identical jobs (the LP's size cap).
  int partners_per_class = 4;
};

struct GavelProblem {
  std::vector<std::vector<double>> throughput;  // T[m][j], steps/s; 0 = cannot run there
  std::vector<int> scale;                       // s_m, GPUs the job uses
  std::vector<double> weight;                   // w_m priority weight; empty = all 1
  std::vector<int> type_gpus;                   // n_j, GPUs of each type
  // Finish-time fairness and makespan only:
  std::vector<double> remaining_steps;  // steps left
  std::vector<double> since_start_s;    // now - submission
  std::vector<double> isolated_cum_s;   // time the done steps took at the isolated share
  GavelSharing sharing;                 // space sharing, any objective
};

// Jobs a < b share GPUs of `type` a fraction `x` of the wall time.
struct GavelPairShare {
  std::size_t a = 0, b = 0;
  int type = 0;
  double x = 0;
};

struct GavelAllocation {
  std::vector<std::vector<double>> x;  // X[m][j], clipped to [0, 1]
  double value = 0;                    // min normalised throughput, max rho, or makespan (s)
  // With space sharing: x is each job's time alone, pairs its time shared.
  std::vector<GavelPairShare> pairs;
};

// maximize min_m (s_m / w_m) * sum_j T[m][j] X[m][j] / T_eq[m], T_eq the
// throughput under the equal share x_eq[j] = n_j / M (rows scaled to <= 1).
// With space sharing, thr_m also counts its time in pairs at the pair rate
// (T_eq stays the exclusive equal share).
GavelAllocation gavel_max_min_fairness(const GavelProblem& problem);
// minimize max_m rho_m(X) = (since_start + rem / thr(X)) / (isolated_cum +
// rem / T_iso), T_iso on an isolated 1/M share; bisection on rho over
// feasibility LPs (thr(X) >= rem / (rho D - since_start)) until hi/lo < 1.05.
// With space sharing, thr counts pair time at the pair rate as above, with
// one pair column per job pair (T_iso stays the exclusive isolated share).
GavelAllocation gavel_finish_time_fairness(const GavelProblem& problem);
// minimize T such that every job can finish its remaining steps by T:
// bisection on T from the largest remaining-steps bound (doubled while infeasible) until
// hi/lo < 1.05, as Gavel's min_total_duration policy. Pairs as for
// finish-time fairness.
GavelAllocation gavel_min_makespan(const GavelProblem& problem);

// The throughput of job m on the equal share / isolated 1/M share, as above.
std::vector<double> gavel_equal_share_throughput(const GavelProblem& problem);
std::vector<double> gavel_isolated_throughput(const GavelProblem& problem);

}  // namespace vnsim
