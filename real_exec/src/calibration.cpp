#include "vnsim/real_exec/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "vnsim/real_exec/median.hpp"

namespace vnsim::real_exec {

namespace {

// Weighted least squares y = intercept + slope * x with both kept >= 0 (a
// negative latency or cost per byte is noise, not physics): a negative slope
// falls back to the weighted mean, a negative intercept to the fit through 0.
struct NonNegativeLine {
  double intercept = 0, slope = 0;
};
template <class Weight>
NonNegativeLine fit_non_negative_line(const std::vector<std::pair<double, double>>& points, Weight weight) {
  double sw = 0, swx = 0, swxx = 0, swy = 0, swxy = 0;
  for (const auto& [x, y] : points) {
    const double w = weight(y);
    sw += w;
    swx += w * x;
    swxx += w * x * x;
    swy += w * y;
    swxy += w * x * y;
  }
  NonNegativeLine f;
  const double denom = sw * swxx - swx * swx;
  if (points.size() >= 2 && denom > 0) {
    f.slope = (sw * swxy - swx * swy) / denom;
    f.intercept = (swy - f.slope * swx) / sw;
  } else {
    f.intercept = swy / sw;
  }
  if (f.slope < 0) {
    f.slope = 0;
    f.intercept = swy / sw;
  }
  if (f.intercept < 0) {
    f.intercept = 0;
    f.slope = swxx > 0 ? swxy / swxx : 0;
  }
  return f;
}

}  // namespace

int calibration_rounds(int repetitions, double round_s, double min_span_s) {
  int rounds = std::max(repetitions, 1);
  if (round_s > 0 && std::isfinite(round_s))
    rounds = std::max(
        rounds, static_cast<int>(std::min<double>(std::ceil(min_span_s / round_s), kMaxCalibrationRounds)));
  return rounds;
}

std::vector<double> interleaved_medians(int rounds, const std::vector<std::function<double()>>& steps) {
  std::vector<std::vector<double>> times(steps.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < steps.size(); ++i) times[i].push_back(steps[i]());
  std::vector<double> medians;
  for (std::vector<double>& t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t.empty() ? 0.0 : t[t.size() / 2]);
  }
  return medians;
}

LineFit fit_line(const std::vector<std::pair<double, double>>& points) {
  if (points.empty()) throw std::invalid_argument("fit_line: no points");
  const double n = static_cast<double>(points.size());
  const NonNegativeLine line = fit_non_negative_line(points, [](double) { return 1.0; });
  LineFit f;
  f.slope = line.slope;
  f.intercept = line.intercept;
  double sse = 0;
  for (const auto& [x, y] : points) sse += std::pow(y - (f.intercept + f.slope * x), 2);
  f.rmse = std::sqrt(sse / n);
  return f;
}

namespace {

// Ring steps per all-reduce over `ranks`: 2(N-1).
double ring_steps(int ranks) {
  if (ranks < 2) throw std::invalid_argument("fit_ring_bandwidth: needs at least 2 ranks");
  return 2.0 * (ranks - 1);
}

// Least-squares bandwidth given the hop latency; none when the latency
// leaves no transfer time in the measurements.
std::optional<double> ring_bandwidth(const std::vector<std::pair<double, double>>& bytes_and_seconds,
                                     int ranks, double hop_latency_s) {
  const double steps = ring_steps(ranks);
  // Per step: y = T/steps - latency = (B/N) * (1/bandwidth); fit 1/bandwidth through the origin.
  double sxx = 0, sxy = 0;
  for (const auto& [bytes, seconds] : bytes_and_seconds) {
    const double x = bytes / ranks;
    const double y = seconds / steps - hop_latency_s;
    sxx += x * x;
    sxy += x * y;
  }
  if (sxy <= 0) return std::nullopt;
  return sxx / sxy;
}

}  // namespace

double fit_ring_bandwidth(const std::vector<std::pair<double, double>>& bytes_and_seconds, int ranks,
                          double hop_latency_s) {
  const std::optional<double> bandwidth = ring_bandwidth(bytes_and_seconds, ranks, hop_latency_s);
  if (!bandwidth) throw std::runtime_error("fit_ring_bandwidth: measurements imply no transfer time");
  return *bandwidth;
}

RingFit fit_ring(const std::vector<std::pair<double, double>>& bytes_and_seconds, int ranks,
                 double hop_latency_s) {
  RingFit fit;
  fit.hop_latency_s = hop_latency_s;
  if (const std::optional<double> bandwidth = ring_bandwidth(bytes_and_seconds, ranks, hop_latency_s)) {
    fit.bandwidth_Bps = *bandwidth;
    return fit;
  }
  double shortest_step_s = std::numeric_limits<double>::infinity();
  for (const auto& [bytes, seconds] : bytes_and_seconds)
    shortest_step_s = std::min(shortest_step_s, seconds / ring_steps(ranks));
  if (!(shortest_step_s > 0))
    throw std::runtime_error("fit_ring_bandwidth: measurements imply no transfer time");
  fit.hop_latency_s = shortest_step_s / 2;
  fit.latency_reduced = true;
  fit.bandwidth_Bps = fit_ring_bandwidth(bytes_and_seconds, ranks, fit.hop_latency_s);
  return fit;
}

AlphaBeta fit_alpha_beta(const std::vector<std::pair<double, double>>& bytes_and_seconds) {
  std::vector<std::pair<double, double>> pts;
  for (const auto& p : bytes_and_seconds)
    if (p.second > 0) pts.push_back(p);
  if (pts.empty()) throw std::invalid_argument("fit_alpha_beta: no positive time");
  // Weighted by 1/t^2, so each size counts by its relative error.
  const NonNegativeLine line = fit_non_negative_line(pts, [](double y) { return 1 / (y * y); });
  AlphaBeta f;
  f.alpha_s = line.intercept;
  f.beta_s_per_byte = line.slope;
  f.from_bytes = pts.front().first;
  f.to_bytes = pts.front().first;
  for (const auto& [x, y] : pts) {
    f.from_bytes = std::min(f.from_bytes, x);
    f.to_bytes = std::max(f.to_bytes, x);
    f.max_relative_error =
        std::max(f.max_relative_error, std::abs(f.alpha_s + f.beta_s_per_byte * x - y) / y);
  }
  return f;
}

AlphaBeta fit_alpha_beta_over(const std::vector<std::pair<double, double>>& bytes_and_seconds,
                              double lo_bytes, double hi_bytes) {
  std::vector<std::pair<double, double>> within;
  for (const auto& p : bytes_and_seconds)
    if (p.first >= lo_bytes / 4 && p.first <= hi_bytes * 4) within.push_back(p);
  if (within.size() < 2) {
    // The two sizes nearest the range, by distance in log size.
    std::vector<std::pair<double, double>> sorted = bytes_and_seconds;
    const double mid = std::sqrt(std::max(lo_bytes, 1.0) * std::max(hi_bytes, 1.0));
    std::sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
      return std::abs(std::log(std::max(a.first, 1.0) / mid)) <
             std::abs(std::log(std::max(b.first, 1.0) / mid));
    });
    within.assign(sorted.begin(),
                  sorted.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(2, sorted.size())));
  }
  return fit_alpha_beta(within);
}

RingFit ring_from_alpha_beta(const AlphaBeta& fit, int ranks) {
  const double steps = ring_steps(ranks);
  RingFit r;
  r.hop_latency_s = fit.alpha_s / steps;
  r.bandwidth_Bps = fit.beta_s_per_byte > 0 ? steps / (ranks * fit.beta_s_per_byte) : 1e15;
  return r;
}

std::string testbed_cluster_spec_json(const TestbedLinks& links, const std::string& reference_gpu,
                                      const std::string& description) {
  nlohmann::ordered_json link;
  link["kind"] = "pcie";
  link["bandwidth_gbps"] = links.link_bandwidth_Bps * 8.0 / 1e9;
  link["latency_us"] = links.link_latency_s * 1e6;
  nlohmann::ordered_json spec;
  spec["name"] = "calibrated-testbed";
  spec["description"] = description;
  spec["defaults"] = {{"gpus", links.workers}, {"gpu_type", reference_gpu}, {"intra", link}};
  // All workers share one node, so the NIC is never on a path; the format requires one.
  spec["defaults"]["nic"] = {{"bandwidth_gbps", link["bandwidth_gbps"]}, {"latency_us", 0}};
  spec["racks"] = nlohmann::ordered_json::array({{{"name", "rack0"}, {"nodes", {{{"name", "host0"}}}}}});
  if (links.communicator_setup_s >= 0) {
    // The executor's workers live for the whole run, so a restart is a new
    // communicator too: the checkpoint I/O is priced by the storage bandwidth.
    spec["elasticity"] = {{"communicator_setup_s", links.communicator_setup_s},
                          {"restart_delay_s", links.communicator_setup_s}};
  }
  return spec.dump(2) + "\n";
}

StepExtras fit_step_extras(const std::vector<StepSample>& steps) {
  std::vector<double> overheads, deviations;
  std::size_t members = 0;
  for (const StepSample& s : steps) {
    overheads.push_back(s.seconds - s.slowest_compute_s - s.allreduce_span_s);
    members = s.member_compute_s.size();
    if (members < 2) continue;
    double mean = 0;
    for (double c : s.member_compute_s) mean += c;
    mean /= static_cast<double>(members);
    for (double c : s.member_compute_s) deviations.push_back(std::abs(c - mean));
  }
  StepExtras out;
  out.step_overhead_s = std::max(0.0, median_of(overheads));
  if (members >= 2)
    out.compute_jitter_s = 1.4826 * median_of(deviations) *
                           std::sqrt(static_cast<double>(members) / static_cast<double>(members - 1));
  return out;
}

std::string model_profile_json(const std::vector<CalibratedModel>& models, const std::string& reference_gpu) {
  nlohmann::ordered_json doc;
  doc["derived_by"] = "vnexec calibrate";
  doc["source"] =
      "compute: least-squares line over measured micro-batch times on the testbed's workers; gradient_bytes: "
      "the emulated gradient actually all-reduced; batch limits and memory: the built-in catalog";
  doc["reference_gpu"] = reference_gpu;
  nlohmann::ordered_json all = nlohmann::ordered_json::object();
  for (const CalibratedModel& m : models) {
    const ModelParams& b = m.base;
    nlohmann::ordered_json e;
    e["alpha_compute_s"] = m.compute.intercept;
    e["beta_compute_s"] = m.compute.slope;
    e["gradient_bytes"] = std::max(1.0, m.gradient_bytes);
    e["weight_state_bytes"] = b.weight_state_bytes;
    e["memory_per_sample_bytes"] = b.memory_per_sample_bytes;
    e["min_local_batch"] = b.min_local_batch;
    e["max_local_batch"] = b.max_local_batch;
    e["default_local_batch"] = b.default_local_batch;
    e["initial_batch"] = b.initial_batch;
    e["max_global_batch"] = b.max_global_batch;
    e["overlap_gamma"] = 1.0;
    e["overlap_fraction"] = 0.0;  // the executor all-reduces after the last micro-batch
    e["step_overhead_s"] = m.step_overhead_s;
    e["compute_jitter_s"] = m.compute_jitter_s;
    e["start_charge_s"] = m.start_charge_s;
    e["fit_points"] = m.points;
    e["fit_rmse_s"] = m.compute.rmse;
    all[b.name] = e;
  }
  doc["models"] = all;
  return doc.dump(2) + "\n";
}

}  // namespace vnsim::real_exec
