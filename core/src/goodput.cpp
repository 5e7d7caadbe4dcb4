#include "vnsim/core/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

constexpr int kStepsPerKnotInterval = 4;
constexpr int kBatchCandidates = 50;  // Pollux's GoodputFunction.optimize

// phi of a batch whose gradient statistics are (sqr, var), normalised to M0.
double phi_of_stats(double m0, double sqr, double var) {
  return sqr > 0 ? m0 * var / sqr : std::numeric_limits<double>::max();
}

// The integration pieces of the progress axis. Per-batch statistics: one
// piece per epoch at the batch's phi, the last continued to inf. Otherwise
// [0, first knot] and [last knot, inf) at the knot's phi, each knot interval
// cut evenly.
template <typename Visit>  // bool visit(double lo, double hi, double phi): false stops
void for_each_piece(const NoiseScaleProfile& p, double batch, Visit visit) {
  const double inf = std::numeric_limits<double>::infinity();
  if (p.per_batch()) {
    double lo = 0;
    for (std::size_t e = 0; e < p.epoch_end.size(); ++e) {
      const bool last = e + 1 == p.epoch_end.size();
      const double hi = last ? inf : p.epoch_end[e];
      if (!visit(lo, hi, p.phi_at(lo, batch))) return;
      lo = hi;
    }
    return;
  }
  if (!visit(0.0, p.progress.front(), p.phi.front())) return;
  for (std::size_t k = 0; k + 1 < p.progress.size(); ++k) {
    const double width = (p.progress[k + 1] - p.progress[k]) / kStepsPerKnotInterval;
    for (int i = 0; i < kStepsPerKnotInterval; ++i) {
      const double lo = p.progress[k] + width * i;
      const double hi = i + 1 == kStepsPerKnotInterval ? p.progress[k + 1] : lo + width;
      if (!visit(lo, hi, p.phi_at(0.5 * (lo + hi)))) return;
    }
  }
  visit(p.progress.back(), inf, p.phi.back());
}

void parse_per_batch(const std::string& where, const nlohmann::json& j, NoiseScaleProfile& p) {
  p.epoch_end = j.at("epoch_end").get<std::vector<double>>();
  p.batches = j.at("batches").get<std::vector<int>>();
  p.grad_sqr = j.at("grad_sqr").get<std::vector<std::vector<double>>>();
  p.grad_var = j.at("grad_var").get<std::vector<std::vector<double>>>();
  if (p.epoch_end.empty() || p.batches.empty()) throw InputError(where + ": needs epochs and batches");
  for (std::size_t e = 0; e < p.epoch_end.size(); ++e)
    if (!(p.epoch_end[e] > (e == 0 ? 0.0 : p.epoch_end[e - 1])))
      throw InputError(where + ".epoch_end: must be > 0 and strictly increasing");
  for (std::size_t b = 0; b < p.batches.size(); ++b)
    if (p.batches[b] < 1 || (b > 0 && p.batches[b] <= p.batches[b - 1]))
      throw InputError(where + ".batches: must be >= 1 and strictly increasing");
  const auto check_table = [&](const std::vector<std::vector<double>>& t, const char* name,
                               bool non_negative) {
    if (t.size() != p.batches.size()) throw InputError(where + "." + name + ": one row per batch");
    for (const auto& row : t) {
      if (row.size() != p.epoch_end.size()) throw InputError(where + "." + name + ": one value per epoch");
      for (double v : row)
        if (!std::isfinite(v) || (non_negative && v < 0))
          throw InputError(where + "." + name +
                           (non_negative ? ": values must be >= 0" : ": values must be finite"));
    }
  };
  check_table(p.grad_sqr, "grad_sqr", false);
  check_table(p.grad_var, "grad_var", true);
}

NoiseScaleProfile parse_profile(const std::string& source, const std::string& name, const nlohmann::json& m) {
  const std::string where = source + ": models." + name;
  NoiseScaleProfile p;
  p.model = name;
  p.initial_batch = m.at("initial_batch").get<int>();
  p.max_batch = m.at("max_batch").get<int>();
  p.total_progress = m.at("total_progress").get<double>();
  if (p.initial_batch < 1 || p.max_batch < p.initial_batch)
    throw InputError(where + ": need 1 <= initial_batch <= max_batch");
  if (!(p.total_progress > 0)) throw InputError(where + ".total_progress: must be > 0");
  for (const auto& knot : m.at("phi")) {
    if (!knot.is_array() || knot.size() != 2)
      throw InputError(where + ".phi: each knot must be [progress, phi]");
    const double at = knot[0].get<double>();
    const double phi = knot[1].get<double>();
    if (!(phi > 0)) throw InputError(where + ".phi: phi must be > 0");
    if (!p.progress.empty() && !(at > p.progress.back()))
      throw InputError(where + ".phi: progress must be strictly increasing");
    if (!(at >= 0)) throw InputError(where + ".phi: progress must be >= 0");
    p.progress.push_back(at);
    p.phi.push_back(phi);
  }
  if (p.progress.empty()) throw InputError(where + ".phi: must have at least one knot");
  if (m.contains("per_batch")) parse_per_batch(where + ".per_batch", m.at("per_batch"), p);
  return p;
}

}  // namespace

double NoiseScaleProfile::phi_at(double x) const {
  if (x <= progress.front()) return phi.front();
  if (x >= progress.back()) return phi.back();
  const auto hi = std::upper_bound(progress.begin(), progress.end(), x);
  const std::size_t k = static_cast<std::size_t>(hi - progress.begin());
  const double t = (x - progress[k - 1]) / (progress[k] - progress[k - 1]);
  // phi spans orders of magnitude over training: interpolate its logarithm.
  return std::exp(std::log(phi[k - 1]) + t * (std::log(phi[k]) - std::log(phi[k - 1])));
}

int NoiseScaleProfile::epoch_at(double x) const {
  if (!per_batch()) return -1;
  const auto end = std::upper_bound(epoch_end.begin(), epoch_end.end(), x);
  return static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(end - epoch_end.begin()), epoch_end.size() - 1));
}

double NoiseScaleProfile::phi_at(double x, double batch) const {
  if (!per_batch()) return phi_at(x);
  const auto e = static_cast<std::size_t>(epoch_at(x));
  if (batch <= batches.front()) return phi_of_stats(initial_batch, grad_sqr.front()[e], grad_var.front()[e]);
  if (batch >= batches.back()) return phi_of_stats(initial_batch, grad_sqr.back()[e], grad_var.back()[e]);
  const auto above = std::upper_bound(batches.begin(), batches.end(), batch);
  const std::size_t k = static_cast<std::size_t>(above - batches.begin());
  // The Pollux simulator interpolates each statistic linearly in the batch.
  const double t = (batch - batches[k - 1]) / (batches[k] - batches[k - 1]);
  const double sqr = grad_sqr[k - 1][e] + t * (grad_sqr[k][e] - grad_sqr[k - 1][e]);
  const double var = grad_var[k - 1][e] + t * (grad_var[k][e] - grad_var[k - 1][e]);
  return phi_of_stats(initial_batch, sqr, var);
}

NoiseScaleCatalog NoiseScaleCatalog::parse(const std::string& json_text, const std::string& source_name) {
  NoiseScaleCatalog out;
  try {
    const auto doc = nlohmann::json::parse(json_text);
    for (const auto& [name, m] : doc.at("models").items())
      out.profiles_.emplace(name, parse_profile(source_name, name, m));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source_name + ": " + e.what());
  }
  return out;
}

const NoiseScaleCatalog& NoiseScaleCatalog::builtin() {
  static const NoiseScaleCatalog catalog = [] {
    constexpr const char* kFile = "noise_scale.json";
    const auto text = embedded_file(kFile);
    if (!text) throw InputError(std::string(kFile) + ": not embedded in this build");
    return parse(std::string(*text), kFile);
  }();
  return catalog;
}

const NoiseScaleProfile* NoiseScaleCatalog::find(const std::string& model) const {
  const auto it = profiles_.find(model);
  return it == profiles_.end() ? nullptr : &it->second;
}

double statistical_efficiency(double phi, double initial_batch, double batch) {
  return (phi + initial_batch) / (phi + batch);
}

double progress_per_step(double phi, double initial_batch, double batch) {
  return batch / initial_batch * statistical_efficiency(phi, initial_batch, batch);
}

namespace {

// Steps at `batch` from progress `from` to `to` over the pieces that
// `pieces(visit)` visits as for_each_piece does.
template <typename Pieces>
double steps_over(Pieces pieces, double initial_batch, double batch, double from, double to) {
  if (to <= from) return 0;
  double steps = 0;
  pieces([&](double lo, double hi, double phi) {
    const double a = std::max(lo, from);
    const double b = std::min(hi, to);
    if (b > a) steps += (b - a) / progress_per_step(phi, initial_batch, batch);
    return hi < to;
  });
  return steps;
}

struct Piece {
  double lo;
  double hi;
  double phi;
};

}  // namespace

double steps_between(const NoiseScaleProfile& profile, double batch, double from, double to) {
  if (!(batch > 0)) throw std::invalid_argument("steps_between: batch must be > 0");
  return steps_over([&](auto visit) { for_each_piece(profile, batch, visit); }, profile.initial_batch, batch,
                    from, to);
}

double progress_after_steps(const NoiseScaleProfile& profile, double batch, double from, double steps) {
  if (!(batch > 0)) throw std::invalid_argument("progress_after_steps: batch must be > 0");
  double at = from;
  double left = std::max(0.0, steps);
  for_each_piece(profile, batch, [&](double /*lo*/, double hi, double phi) {
    if (hi <= at) return true;
    const double rate = progress_per_step(phi, profile.initial_batch, batch);
    const double piece_steps = (hi - at) / rate;  // inf for the last piece
    if (left <= piece_steps) {
      at += left * rate;
      left = 0;
      return false;
    }
    left -= piece_steps;
    at = hi;
    return true;
  });
  return at;
}

double steps_to_target(const NoiseScaleProfile& profile, double batch) {
  return steps_between(profile, batch, 0, profile.total_progress);
}

double steps_left_after_batch_change(const NoiseScaleProfile* noise, int spec_batch, double spec_iterations,
                                     int old_batch, double steps_left, int new_batch) {
  if (spec_batch < 1 || old_batch < 1 || new_batch < 1)
    throw std::invalid_argument("steps_left_after_batch_change: batches must be >= 1");
  if (steps_left <= 0 || old_batch == new_batch) return std::max(0.0, steps_left);
  if (noise == nullptr) return steps_left * old_batch / new_batch;
  const double total = progress_after_steps(*noise, spec_batch, 0, spec_iterations);
  // Where the job stands: the progress p from which `steps_left` steps at
  // old_batch reach `total`. steps_between is decreasing in p: bisect.
  // The pieces at old_batch (their phi) are taken once for the up to 100
  // bisection steps, which each took them again: the same numbers, summed
  // in the same order, so the same steps as steps_between's.
  std::vector<Piece> old_pieces;
  for_each_piece(*noise, old_batch, [&](double lo, double hi, double phi) {
    old_pieces.push_back(Piece{lo, hi, phi});
    return true;
  });
  auto steps_at_old_batch = [&](double from) {
    return steps_over(
        [&](auto visit) {
          for (const Piece& p : old_pieces)
            if (!visit(p.lo, p.hi, p.phi)) return;
        },
        noise->initial_batch, old_batch, from, total);
  };
  double lo = 0;
  double hi = total;
  if (steps_at_old_batch(0) <= steps_left) {
    hi = 0;  // at (or before) the start
  } else {
    for (int i = 0; i < 100 && hi - lo > 1e-9 * std::max(1.0, total); ++i) {
      const double mid = 0.5 * (lo + hi);
      (steps_at_old_batch(mid) > steps_left ? lo : hi) = mid;
    }
  }
  return steps_between(*noise, new_batch, hi, total);
}

double accumulated_iteration_s(const ModelParams& model, double gpu_speed, int local_batch, int accumulation,
                               double sync_s) {
  return (accumulation + 1) * model.micro_batch_time_s(local_batch) / gpu_speed + sync_s;
}

BatchChoice best_batch(const GoodputInputs& in, double progress, int replicas, double sync_s) {
  if (in.model == nullptr || in.noise == nullptr || replicas < 1)
    throw std::invalid_argument("best_batch: needs a model, a noise profile and >= 1 replica");
  const ModelParams& model = *in.model;
  const double m0 = in.noise->initial_batch;
  const int max_local = std::min(in.max_local_batch, model.max_local_batch);
  BatchChoice best;
  if (max_local < model.min_local_batch) return best;
  const double lo = std::max(m0, static_cast<double>(model.min_local_batch) * replicas);
  const double hi = std::max(lo, static_cast<double>(in.max_global_batch));
  for (int i = 0; i < kBatchCandidates; ++i) {
    const double t = kBatchCandidates == 1 ? 0.0 : static_cast<double>(i) / (kBatchCandidates - 1);
    const double target = lo * std::pow(hi / lo, t);
    const double local = target / replicas;
    const int accumulation = std::max(0, static_cast<int>(std::ceil(local / max_local)) - 1);
    const int m = static_cast<int>(std::ceil(local / (accumulation + 1)));
    if (m < model.min_local_batch || m > max_local) continue;
    BatchChoice c;
    c.local_batch = m;
    c.accumulation_steps = accumulation;
    c.global_batch = replicas * (accumulation + 1) * m;
    c.iteration_s = accumulated_iteration_s(model, in.gpu_speed, m, accumulation, sync_s);
    c.throughput = c.global_batch / c.iteration_s;
    c.efficiency = statistical_efficiency(in.noise->phi_at(progress, c.global_batch), m0, c.global_batch);
    c.goodput = c.throughput * c.efficiency;
    if (c.goodput > best.goodput) best = c;
  }
  return best;
}

int max_local_batch_for_memory(const ModelParams& model, double memory_bytes) {
  int fit = model.max_local_batch;
  if (model.memory_per_sample_bytes > 0) {
    const double room = (memory_bytes - model.weight_state_bytes) / model.memory_per_sample_bytes;
    fit = room < 0 ? 0 : static_cast<int>(std::min<double>(fit, std::floor(room)));
  }
  return fit < model.min_local_batch ? 0 : fit;
}

}  // namespace vnsim
