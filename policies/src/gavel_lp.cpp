#include "vnsim/policies/gavel_lp.hpp"

#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "gavel_pairs.hpp"

namespace vnsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Gavel's min_total_duration stops its bisection at hi < 1.05 lo; the
// finish-time-fairness bisection uses the same tolerance.
constexpr double kBisectionRatio = 1.05;
constexpr int kMaxDoublings = 80;

// A sparse LP in CLP's input form, minimised.
class Lp {
 public:
  int add_column(double lb, double ub, double cost) {
    col_lb_.push_back(lb);
    col_ub_.push_back(ub);
    cost_.push_back(cost);
    return static_cast<int>(cost_.size()) - 1;
  }
  int add_row(double lb, double ub) {
    row_lb_.push_back(lb);
    row_ub_.push_back(ub);
    return static_cast<int>(row_lb_.size()) - 1;
  }
  void set(int row, int col, double value) {
    rows_.push_back(row);
    cols_.push_back(col);
    values_.push_back(value);
  }
  // Replaces `model`'s problem with this LP (basis all slack, no log).
  void load(ClpSimplex& model) const {
    CoinPackedMatrix matrix(true, rows_.data(), cols_.data(), values_.data(),
                            static_cast<CoinBigIndex>(values_.size()));
    // Rows or columns with no entry at the end are not seen by the triplet
    // constructor; size the matrix explicitly.
    matrix.setDimensions(static_cast<int>(row_lb_.size()), static_cast<int>(cost_.size()));
    model.setLogLevel(0);
    model.loadProblem(matrix, col_lb_.data(), col_ub_.data(), cost_.data(), row_lb_.data(), row_ub_.data());
  }
  std::optional<std::vector<double>> solve() const {
    ClpSimplex model;
    load(model);
    model.initialSolve();
    if (!model.isProvenOptimal()) return std::nullopt;
    const double* x = model.primalColumnSolution();
    return std::vector<double>(x, x + cost_.size());
  }

 private:
  std::vector<double> col_lb_, col_ub_, cost_, row_lb_, row_ub_;
  std::vector<int> rows_, cols_;
  std::vector<double> values_;
};

std::size_t job_count(const GavelProblem& p) {
  if (p.scale.size() != p.throughput.size())
    throw std::invalid_argument("gavel LP: throughput and scale have different job counts");
  for (const auto& row : p.throughput)
    if (row.size() != p.type_gpus.size())
      throw std::invalid_argument("gavel LP: a throughput row does not have one entry per GPU type");
  return p.throughput.size();
}

double weight_of(const GavelProblem& p, std::size_t m) {
  return p.weight.empty() ? 1.0 : p.weight.at(m);
}

double best_throughput(const GavelProblem& p, std::size_t m) {
  return *std::max_element(p.throughput[m].begin(), p.throughput[m].end());
}

// X columns (one per job and type it can run on) with the base constraints.
struct BaseLp {
  Lp lp;
  std::vector<std::vector<int>> column;  // column[m][j], -1 when T[m][j] = 0
  std::vector<int> job_row;              // sum_j X[m][j] <= 1
  std::vector<int> type_row;             // sum_m s_m X[m][j] <= n_j
};

// `copies[m]`: how many identical jobs row m stands for (empty: one each).
BaseLp base_lp(const GavelProblem& p, const std::function<double(std::size_t, std::size_t)>& cost,
               const std::vector<int>& copies = {}) {
  const std::size_t jobs = job_count(p);
  const std::size_t types = p.type_gpus.size();
  BaseLp b;
  b.column.assign(jobs, std::vector<int>(types, -1));
  for (std::size_t m = 0; m < jobs; ++m)
    for (std::size_t j = 0; j < types; ++j)
      if (p.throughput[m][j] > 0 && p.scale[m] <= p.type_gpus[j])
        b.column[m][j] = b.lp.add_column(0, 1, cost(m, j));
  for (std::size_t m = 0; m < jobs; ++m) {
    const int row = b.lp.add_row(-kInf, 1);
    b.job_row.push_back(row);
    for (std::size_t j = 0; j < types; ++j)
      if (b.column[m][j] >= 0) b.lp.set(row, b.column[m][j], 1);
  }
  for (std::size_t j = 0; j < types; ++j) {
    const int row = b.lp.add_row(-kInf, p.type_gpus[j]);
    b.type_row.push_back(row);
    for (std::size_t m = 0; m < jobs; ++m)
      if (b.column[m][j] >= 0) b.lp.set(row, b.column[m][j], p.scale[m] * (copies.empty() ? 1 : copies[m]));
  }
  return b;
}

std::vector<std::vector<double>> extract(const GavelProblem& p, const BaseLp& b,
                                         const std::vector<double>& sol) {
  std::vector<std::vector<double>> x(p.throughput.size(), std::vector<double>(p.type_gpus.size(), 0));
  for (std::size_t m = 0; m < x.size(); ++m)
    for (std::size_t j = 0; j < x[m].size(); ++j)
      if (b.column[m][j] >= 0) x[m][j] = std::clamp(sol[b.column[m][j]], 0.0, 1.0);
  return x;
}

bool sharing_on(const GavelProblem& p) {
  if (p.sharing.family.empty()) return false;
  if (p.sharing.family.size() != p.throughput.size())
    throw std::invalid_argument("gavel LP: sharing.family needs one entry per job");
  return true;
}

// The feasibility LPs of finish-time fairness and makespan, with space
// sharing's pair columns when it is on.
class FeasibilityLp {
 public:
  explicit FeasibilityLp(const GavelProblem& p) : p_(p) {
    job_count(p);  // checks the shapes
    if (sharing_on(p)) {
      // Every job is its own class here: the needs differ per job, so the
      // class reduction of max-min does not apply. With all copies 1,
      // gavel_pair_candidates never pairs a job with itself and each job
      // keeps its `partners_per_class` best partners, so the pair columns
      // stay at most jobs x partners_per_class x types.
      const std::vector<int> copies(p.throughput.size(), 1);
      pairs_ = gavel_pair_candidates(p, p.sharing.family, copies, p.sharing);
    }
    // A fraction may exceed 1 (interference.json allows up to 1.5), so a
    // job's fastest rate can be one next to a partner.
    top_.resize(p.throughput.size());
    for (std::size_t m = 0; m < top_.size(); ++m) top_[m] = best_throughput(p, m);
    for (const GavelPairCandidate& c : pairs_) {
      const std::size_t j = static_cast<std::size_t>(c.type);
      top_[c.a] = std::max(top_[c.a], p.throughput[c.a][j] * c.fa);
      top_[c.b] = std::max(top_[c.b], p.throughput[c.b][j] * c.fb);
    }
    build();
  }

  // The most steps/s job m can reach: a lower bound on its time to finish.
  double top_rate(std::size_t m) const { return top_[m]; }

  // Every job m reaches throughput need(m) (NaN: impossible). Among feasible
  // X it maximises the total throughput, each job's counted relative to its
  // best type (as max-min's stage 2), so the spare capacity is not left idle.
  // Only the need rows' lower bounds change from one call to the next, which
  // keeps the last basis dual feasible: the dual simplex goes on from it
  // instead of from scratch (makespan with space sharing on a 400-job replay:
  // median 80 pivots a step, against 590 when every step started cold).
  std::optional<GavelAllocation> meet(const std::vector<double>& need) {
    for (std::size_t m = 0; m < need.size(); ++m)
      if (std::isnan(need[m]) || need[m] > top_[m] * (1 + 1e-9)) return std::nullopt;
    for (std::size_t m = 0; m < need.size(); ++m) model_.setRowLower(need_row_[m], std::max(need[m], 0.0));
    model_.dual();
    if (!model_.isProvenOptimal()) return std::nullopt;
    const double* sol = model_.primalColumnSolution();
    GavelAllocation out;
    out.x.assign(p_.throughput.size(), std::vector<double>(p_.type_gpus.size(), 0));
    for (std::size_t m = 0; m < out.x.size(); ++m)
      for (std::size_t j = 0; j < out.x[m].size(); ++j)
        if (column_[m][j] >= 0) out.x[m][j] = std::clamp(sol[column_[m][j]], 0.0, 1.0);
    // Each column is one real job pair, so its time needs no spreading.
    constexpr double kZero = 1e-9;  // CLP's zero tolerance leaves tiny values
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
      const double z = sol[pair_column_[i]];
      if (z > kZero)
        out.pairs.push_back(GavelPairShare{pairs_[i].a, pairs_[i].b, pairs_[i].type, std::min(z, 1.0)});
    }
    return out;
  }

 private:
  // The LP with every need row at 0 (a job with no need is unconstrained).
  void build() {
    BaseLp b = base_lp(
        p_, [&](std::size_t m, std::size_t j) { return -p_.throughput[m][j] / best_throughput(p_, m); });
    need_row_.assign(p_.throughput.size(), -1);
    for (std::size_t m = 0; m < need_row_.size(); ++m) {
      need_row_[m] = b.lp.add_row(0, kInf);
      for (std::size_t j = 0; j < p_.type_gpus.size(); ++j)
        if (b.column[m][j] >= 0) b.lp.set(need_row_[m], b.column[m][j], p_.throughput[m][j]);
    }
    // A pair column z is the time jobs a and b share s_a GPUs of the type:
    // it counts in both jobs' time rows, once in the type's capacity, and in
    // each job's need at its rate next to the other.
    for (const GavelPairCandidate& c : pairs_) {
      const std::size_t j = static_cast<std::size_t>(c.type);
      const double rate_a = p_.throughput[c.a][j] * c.fa, rate_b = p_.throughput[c.b][j] * c.fb;
      const double gain = rate_a / best_throughput(p_, c.a) + rate_b / best_throughput(p_, c.b);
      const int col = b.lp.add_column(0, 1, -gain);
      pair_column_.push_back(col);
      b.lp.set(b.job_row[c.a], col, 1);
      b.lp.set(b.job_row[c.b], col, 1);
      b.lp.set(b.type_row[j], col, p_.scale[c.a]);
      b.lp.set(need_row_[c.a], col, rate_a);
      b.lp.set(need_row_[c.b], col, rate_b);
    }
    column_ = std::move(b.column);
    b.lp.load(model_);
    // The tie-break objective leaves the dual highly degenerate: on the
    // decision bench's 1,500-job LP with pair columns, CLP's default
    // perturbation choice took 22,542 pivots (2.2 s), always perturbing
    // 2,594 (0.11 s).
    model_.setPerturbation(50);
  }

  const GavelProblem& p_;
  std::vector<GavelPairCandidate> pairs_;
  std::vector<double> top_;
  ClpSimplex model_;
  std::vector<std::vector<int>> column_;  // column_[m][j] as BaseLp's
  std::vector<int> need_row_, pair_column_;
};

// Smallest v (to within kBisectionRatio) for which lp.meet(needs(v)) is
// feasible, starting from a lower bound `lo` > 0.
GavelAllocation bisect(FeasibilityLp& lp, double lo,
                       const std::function<std::vector<double>(double)>& needs) {
  lo = std::max(lo, 1e-9);
  if (auto x = lp.meet(needs(lo * (1 + 1e-9)))) {
    x->value = lo;
    return std::move(*x);
  }
  double hi = lo * 2;
  std::optional<GavelAllocation> best;
  for (int i = 0; i < kMaxDoublings && !(best = lp.meet(needs(hi))); ++i) {
    lo = hi;
    hi *= 2;
  }
  if (!best) throw std::runtime_error("gavel LP: no feasible allocation found");
  while (hi > lo * kBisectionRatio) {
    const double mid = std::sqrt(lo * hi);
    if (auto x = lp.meet(needs(mid))) {
      best = std::move(x);
      hi = mid;
    } else {
      lo = mid;
    }
  }
  best->value = hi;
  return std::move(*best);
}

void require_remaining(const GavelProblem& p) {
  if (p.remaining_steps.size() != p.throughput.size())
    throw std::invalid_argument("gavel LP: remaining_steps needs one entry per job");
}

}  // namespace

std::vector<double> gavel_equal_share_throughput(const GavelProblem& p) {
  const std::size_t jobs = job_count(p);
  std::vector<double> out(jobs, 0);
  if (jobs == 0) return out;
  double total = 0;
  for (int n : p.type_gpus) total += n;
  const double row_sum = total / static_cast<double>(jobs);
  const double shrink = std::max(1.0, row_sum);
  for (std::size_t m = 0; m < jobs; ++m)
    for (std::size_t j = 0; j < p.type_gpus.size(); ++j)
      out[m] += p.throughput[m][j] * (p.type_gpus[j] / static_cast<double>(jobs)) / shrink;
  return out;
}

std::vector<double> gavel_isolated_throughput(const GavelProblem& p) {
  const std::size_t jobs = job_count(p);
  std::vector<double> out(jobs, 0);
  for (std::size_t m = 0; m < jobs; ++m) {
    std::vector<double> x(p.type_gpus.size());
    double row_sum = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      x[j] = p.type_gpus[j] / static_cast<double>(jobs) / std::max(1, p.scale[m]);
      row_sum += x[j];
    }
    for (std::size_t j = 0; j < x.size(); ++j) out[m] += p.throughput[m][j] * x[j] / std::max(1.0, row_sum);
  }
  return out;
}

GavelAllocation gavel_max_min_fairness(const GavelProblem& p) {
  const std::vector<double> equal = gavel_equal_share_throughput(p);
  const bool sharing = sharing_on(p);
  // Jobs with the same throughput row, scale and weight (and, with space
  // sharing, interference family) are interchangeable in this LP, and
  // averaging an optimum over them is again an optimum (the LP is convex and
  // symmetric in them), so one row per class with the class size in the
  // capacity rows gives the same value. Traces repeat a few job shapes, so
  // this shrinks a 1,000-job LP to a few dozen rows.
  // Keyed by a job of the class (its row compared in place: a copy of every
  // job's row per solve was most of the class search on long queues).
  auto key_of = [&](std::size_t m) {
    return std::tuple<const std::vector<double>&, int, double, int>(
        p.throughput[m], p.scale[m], weight_of(p, m), sharing ? p.sharing.family[m] : -1);
  };
  auto key_less = [&](std::size_t a, std::size_t b) { return key_of(a) < key_of(b); };
  std::map<std::size_t, std::size_t, decltype(key_less)> class_of_key(key_less);
  std::vector<std::size_t> class_of(equal.size());
  GavelProblem r;
  r.type_gpus = p.type_gpus;
  std::vector<int> copies, family;
  std::vector<double> class_equal;
  for (std::size_t m = 0; m < equal.size(); ++m) {
    const int fam = sharing ? p.sharing.family[m] : -1;
    auto [it, added] = class_of_key.emplace(m, r.throughput.size());
    if (added) {
      r.throughput.push_back(p.throughput[m]);
      r.scale.push_back(p.scale[m]);
      r.weight.push_back(weight_of(p, m));
      copies.push_back(0);
      family.push_back(fam);
      class_equal.push_back(equal[m]);
    }
    class_of[m] = it->second;
    ++copies[it->second];
  }
  const std::vector<GavelPairCandidate> candidates =
      sharing ? gavel_pair_candidates(r, family, copies, p.sharing) : std::vector<GavelPairCandidate>{};

  // Stage 1 finds the largest minimum t*. The optimum is rarely unique
  // (jobs above the minimum can take any split), and an arbitrary split makes
  // jobs migrate between types for nothing, so stage 2 keeps every job at
  // >= t* and maximises the total throughput, each job's relative to its
  // best type (the same tie-break as the feasibility LPs below).
  auto build = [&](bool second, double t_floor) {
    BaseLp b = base_lp(
        r,
        [&](std::size_t k, std::size_t j) {
          return second ? -copies[k] * r.throughput[k][j] / best_throughput(r, k) : 0.0;
        },
        copies);
    const int t = b.lp.add_column(second ? t_floor : 0, kInf, second ? 0 : -1);
    std::vector<int> fair_row(class_equal.size(), -1);
    std::vector<double> fair_coef(class_equal.size(), 0);
    for (std::size_t k = 0; k < class_equal.size(); ++k) {
      if (!(class_equal[k] > 0)) continue;  // runs nowhere: not part of the minimum
      fair_coef[k] = r.scale[k] / (r.weight[k] * class_equal[k]);
      fair_row[k] = b.lp.add_row(0, kInf);  // c * thr_k(X) - t >= 0
      for (std::size_t j = 0; j < r.type_gpus.size(); ++j)
        if (b.column[k][j] >= 0) b.lp.set(fair_row[k], b.column[k][j], fair_coef[k] * r.throughput[k][j]);
      b.lp.set(fair_row[k], t, -1);
    }
    // A pair column z is the time of all the class pair's job pairs summed;
    // a job of class a spends (a == b ? 2 : 1) z / copies[a] of its time in
    // them, at fa times its alone rate.
    std::vector<int> pair_column;
    for (const GavelPairCandidate& c : candidates) {
      const std::size_t j = static_cast<std::size_t>(c.type);
      const double share_a = (c.a == c.b ? 2.0 : 1.0) / copies[c.a];
      const double share_b = 1.0 / copies[c.b];
      const double rate_a = r.throughput[c.a][j] * c.fa, rate_b = r.throughput[c.b][j] * c.fb;
      const double gain = rate_a / best_throughput(r, c.a) + rate_b / best_throughput(r, c.b);
      const int col = b.lp.add_column(0, kInf, second ? -gain : 0.0);
      pair_column.push_back(col);
      b.lp.set(b.job_row[c.a], col, share_a);
      if (c.b != c.a) b.lp.set(b.job_row[c.b], col, share_b);
      b.lp.set(b.type_row[j], col, r.scale[c.a]);
      if (fair_row[c.a] >= 0) b.lp.set(fair_row[c.a], col, fair_coef[c.a] * share_a * rate_a);
      if (c.b != c.a && fair_row[c.b] >= 0) b.lp.set(fair_row[c.b], col, fair_coef[c.b] * share_b * rate_b);
    }
    return std::make_tuple(std::move(b), t, std::move(pair_column));
  };
  auto [b, t, pair_column] = build(false, 0);
  auto sol = b.lp.solve();
  if (!sol) throw std::runtime_error("gavel LP: max-min fairness LP was not solved");
  const double best_min = (*sol)[t];
  // A relative slack keeps stage 2 feasible despite rounding in stage 1.
  auto [b2, t2, pair_column2] = build(true, best_min * (1 - 1e-9));
  if (auto sol2 = b2.lp.solve()) {
    b = std::move(b2);
    sol = std::move(sol2);
  }
  const std::vector<std::vector<double>> class_x = extract(r, b, *sol);
  GavelAllocation out;
  out.value = best_min;
  for (std::size_t m = 0; m < equal.size(); ++m) out.x.push_back(class_x[class_of[m]]);
  if (!sharing) return out;
  std::vector<std::vector<std::size_t>> members(copies.size());
  for (std::size_t m = 0; m < equal.size(); ++m) members[class_of[m]].push_back(m);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const GavelPairCandidate& c = candidates[i];
    spread_pair_time(members[c.a], members[c.b], c.a == c.b, c.type,
                     (*sol)[static_cast<std::size_t>(pair_column[i])], out.pairs);
  }
  return out;
}

GavelAllocation gavel_finish_time_fairness(const GavelProblem& p) {
  require_remaining(p);
  const std::vector<double> iso = gavel_isolated_throughput(p);
  FeasibilityLp lp(p);
  const std::size_t jobs = p.throughput.size();
  std::vector<double> since(jobs, 0), denom(jobs, 0);
  double lo = 0;
  for (std::size_t m = 0; m < jobs; ++m) {
    since[m] = p.since_start_s.empty() ? 0 : p.since_start_s.at(m);
    const double cum = p.isolated_cum_s.empty() ? 0 : p.isolated_cum_s.at(m);
    denom[m] = cum + (iso[m] > 0 ? p.remaining_steps[m] / iso[m] : 0);
    const double top = lp.top_rate(m);
    if (denom[m] > 0 && top > 0) lo = std::max(lo, (since[m] + p.remaining_steps[m] / top) / denom[m]);
  }
  return bisect(lp, lo, [&](double rho) {
    std::vector<double> need(jobs, 0);
    for (std::size_t m = 0; m < jobs; ++m) {
      if (p.remaining_steps[m] <= 0 || !(denom[m] > 0) || !(best_throughput(p, m) > 0)) continue;
      const double budget = rho * denom[m] - since[m];
      need[m] = budget > 0 ? p.remaining_steps[m] / budget : std::numeric_limits<double>::quiet_NaN();
    }
    return need;
  });
}

GavelAllocation gavel_min_makespan(const GavelProblem& p) {
  require_remaining(p);
  FeasibilityLp lp(p);
  const std::size_t jobs = p.throughput.size();
  double lo = 0;
  for (std::size_t m = 0; m < jobs; ++m)
    if (lp.top_rate(m) > 0) lo = std::max(lo, p.remaining_steps[m] / lp.top_rate(m));
  return bisect(lp, lo, [&](double makespan_s) {
    std::vector<double> need(jobs, 0);
    for (std::size_t m = 0; m < jobs; ++m)
      if (best_throughput(p, m) > 0) need[m] = p.remaining_steps[m] / makespan_s;
    return need;
  });
}

}  // namespace vnsim
