#include "vnsim/core/link_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/text_file.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {
namespace {

constexpr double kMinEfficiency = 1e-3;
constexpr int kScanPoints = 121;  // 10^-3 .. 1, 40 points per decade
constexpr int kGoldenSteps = 40;

Placement consolidated(const Cluster& cluster, const MeasuredStep& row) {
  if (row.gpus_per_node.size() > static_cast<std::size_t>(cluster.node_count()))
    throw InputError(row.where + ": placement needs " + std::to_string(row.gpus_per_node.size()) +
                     " nodes, the cluster has " + std::to_string(cluster.node_count()));
  std::vector<GpuId> ids;
  for (std::size_t n = 0; n < row.gpus_per_node.size(); ++n) {
    const NodeInfo& node = cluster.node(static_cast<NodeId>(n));
    if (row.gpus_per_node[n] < 1 || row.gpus_per_node[n] > node.gpu_count)
      throw InputError(row.where + ": placement needs " + std::to_string(row.gpus_per_node[n]) +
                       " GPUs on node " + std::to_string(n) + ", which has " +
                       std::to_string(node.gpu_count));
    for (int g = 0; g < row.gpus_per_node[n]; ++g) ids.push_back(node.first_gpu + g);
  }
  const int n = static_cast<int>(ids.size());
  return spread_virtual_nodes(std::move(ids), n);
}

int total_gpus(const MeasuredStep& row) {
  int n = 0;
  for (int g : row.gpus_per_node) n += g;
  return n;
}

// The rows' mean |simulated / measured - 1|, each model with its overlap
// fraction from `overlap` where named there, else the catalog's.
double mean_error(const ClusterSpec& spec, const std::vector<const MeasuredStep*>& rows,
                  const GpuCatalog& gpus, const ModelCatalog& models,
                  const std::map<std::string, double>& overlap = {}) {
  if (rows.empty()) return 0;
  const Cluster cluster(spec);
  const Topology topology(cluster);
  double sum = 0;
  for (const MeasuredStep* row : rows) {
    const Placement placement = consolidated(cluster, *row);
    ModelParams params = models.at(row->model);
    if (const auto it = overlap.find(row->model); it != overlap.end()) params.overlap_fraction = it->second;
    const double t =
        iteration_time(topology, gpus, params, placement, row->local_batch * total_gpus(*row)).total_s;
    sum += std::abs(t / row->step_s - 1);
  }
  return sum / static_cast<double>(rows.size());
}

// argmin over e in [kMinEfficiency, 1] of error(e).
template <typename Error>
double minimise(Error error) {
  const double lo_log = std::log(kMinEfficiency);
  const auto at = [&](int i) { return std::exp(lo_log * (1 - static_cast<double>(i) / (kScanPoints - 1))); };
  int best = 0;
  double best_error = error(at(0));
  for (int i = 1; i < kScanPoints; ++i) {
    const double e = error(at(i));
    if (e < best_error) best = i, best_error = e;
  }
  // Golden section on log e between the scan's neighbours of its best point.
  double a = std::log(at(std::max(0, best - 1)));
  double b = std::log(at(std::min(kScanPoints - 1, best + 1)));
  const double r = (std::sqrt(5.0) - 1) / 2;
  double c = b - r * (b - a);
  double d = a + r * (b - a);
  double fc = error(std::exp(c));
  double fd = error(std::exp(d));
  for (int i = 0; i < kGoldenSteps; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - r * (b - a);
      fc = error(std::exp(c));
    } else {
      a = c, c = d, fc = fd;
      d = a + r * (b - a);
      fd = error(std::exp(d));
    }
  }
  const double refined = std::exp(fc < fd ? c : d);
  return std::min(fc, fd) < best_error ? refined : at(best);
}

// argmin over f in [0, 1] of error(f): a linear scan, then a golden-section
// search between the scan's neighbours of its best point.
template <typename Error>
double minimise_fraction(Error error) {
  constexpr int kFractionScan = 101;
  const auto at = [](int i) { return static_cast<double>(i) / (kFractionScan - 1); };
  int best = 0;
  double best_error = error(at(0));
  for (int i = 1; i < kFractionScan; ++i) {
    const double e = error(at(i));
    if (e < best_error) best = i, best_error = e;
  }
  double a = at(std::max(0, best - 1));
  double b = at(std::min(kFractionScan - 1, best + 1));
  const double r = (std::sqrt(5.0) - 1) / 2;
  double c = b - r * (b - a);
  double d = a + r * (b - a);
  double fc = error(c);
  double fd = error(d);
  for (int i = 0; i < kGoldenSteps; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - r * (b - a);
      fc = error(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + r * (b - a);
      fd = error(d);
    }
  }
  return std::min(fc, fd) < best_error ? (fc < fd ? c : d) : at(best);
}

}  // namespace

std::map<std::string, double> fitted_overlaps(const LinkFit& fit) {
  std::map<std::string, double> out;
  for (const OverlapFit& o : fit.overlaps) out[o.model] = o.overlap_fraction;
  return out;
}

double simulated_step_s(const ClusterSpec& spec, const MeasuredStep& row, const GpuCatalog& gpus,
                        const ModelCatalog& models) {
  if (!models.find(row.model)) throw InputError(row.where + ": unknown model '" + row.model + "'");
  const Cluster cluster(spec);
  const Topology topology(cluster);
  return iteration_time(topology, gpus, models.at(row.model), consolidated(cluster, row),
                        row.local_batch * total_gpus(row))
      .total_s;
}

ClusterSpec with_link_efficiencies(ClusterSpec spec, double intra_efficiency, double nic_efficiency) {
  for (auto& rack : spec.racks)
    for (auto& node : rack.nodes) {
      node.intra.efficiency = intra_efficiency;
      node.nic_efficiency = nic_efficiency;
    }
  return spec;
}

LinkFit fit_link_efficiencies(const ClusterSpec& spec, const std::vector<MeasuredStep>& rows,
                              const GpuCatalog& gpus, const ModelCatalog& models, bool fit_overlap) {
  std::vector<const MeasuredStep*> intra_rows, nic_rows;
  std::map<std::string, std::vector<const MeasuredStep*>> model_rows;  // >= 2 GPUs
  for (const auto& row : rows) {
    if (!models.find(row.model)) throw InputError(row.where + ": unknown model '" + row.model + "'");
    if (row.gpus_per_node.size() > 1)
      nic_rows.push_back(&row);
    else if (total_gpus(row) > 1)
      intra_rows.push_back(&row);
    if (total_gpus(row) > 1) model_rows[row.model].push_back(&row);
  }
  if (spec.racks.empty() || spec.racks.front().nodes.empty()) throw InputError(spec.name + ": no nodes");
  const NodeSpec& first = spec.racks.front().nodes.front();
  LinkFit fit;
  fit.intra_rows = intra_rows.size();
  fit.nic_rows = nic_rows.size();
  fit.intra_efficiency = first.intra.efficiency;
  fit.nic_efficiency = first.nic_efficiency;
  fit.intra_error_before = mean_error(spec, intra_rows, gpus, models);
  fit.nic_error_before = mean_error(spec, nic_rows, gpus, models);
  if (fit_overlap)
    for (const auto& [name, selected] : model_rows)
      fit.overlaps.push_back(OverlapFit{name, selected.size(), models.at(name).overlap_fraction,
                                        mean_error(spec, selected, gpus, models), 0});
  const int rounds = fit_overlap ? kMaxOverlapRounds : 1;
  for (int round = 0; round < rounds; ++round) {
    const LinkFit before = fit;
    const std::map<std::string, double> current = fitted_overlaps(fit);
    if (!intra_rows.empty())
      fit.intra_efficiency = minimise([&](double e) {
        return mean_error(with_link_efficiencies(spec, e, fit.nic_efficiency), intra_rows, gpus, models,
                          current);
      });
    if (!nic_rows.empty())
      fit.nic_efficiency = minimise([&](double e) {
        return mean_error(with_link_efficiencies(spec, fit.intra_efficiency, e), nic_rows, gpus, models,
                          current);
      });
    const ClusterSpec links = with_link_efficiencies(spec, fit.intra_efficiency, fit.nic_efficiency);
    bool moved = std::abs(fit.intra_efficiency / before.intra_efficiency - 1) > 1e-3 ||
                 std::abs(fit.nic_efficiency / before.nic_efficiency - 1) > 1e-3;
    for (std::size_t k = 0; k < fit.overlaps.size(); ++k) {
      OverlapFit& o = fit.overlaps[k];
      o.overlap_fraction = minimise_fraction([&](double f) {
        return mean_error(links, model_rows.at(o.model), gpus, models, {{o.model, f}});
      });
      moved = moved || std::abs(o.overlap_fraction - before.overlaps[k].overlap_fraction) > 1e-3;
    }
    if (!moved) break;
  }
  const ClusterSpec fitted = with_link_efficiencies(spec, fit.intra_efficiency, fit.nic_efficiency);
  const std::map<std::string, double> overlaps = fitted_overlaps(fit);
  fit.intra_error_after = mean_error(fitted, intra_rows, gpus, models, overlaps);
  fit.nic_error_after = mean_error(fitted, nic_rows, gpus, models, overlaps);
  for (OverlapFit& o : fit.overlaps)
    o.error_after = mean_error(fitted, model_rows.at(o.model), gpus, models, overlaps);
  return fit;
}

std::vector<MeasuredStep> read_pollux_placements(const std::string& dir, const ModelCatalog& models) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw InputError(dir + ": not a folder");
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory() && models.find(entry.path().filename().string()))
      folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());  // directory order is unspecified
  std::vector<MeasuredStep> rows;
  for (const auto& folder : folders) {
    const std::string path = (folder / "placements.csv").string();
    std::istringstream in(read_text_file(path));
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const std::string where = path + ":" + std::to_string(line_no);
      if (line_no == 1) {
        if (line.rfind("placement,local_bsz,step_time", 0) != 0)
          throw InputError(where + ": expected the header placement,local_bsz,step_time[,sync_time]");
        continue;
      }
      if (line.empty()) continue;
      std::vector<std::string> cells;
      std::istringstream l(line);
      std::string cell;
      while (std::getline(l, cell, ',')) cells.push_back(cell);
      if (cells.size() < 3) throw InputError(where + ": expected placement,local_bsz,step_time");
      MeasuredStep row;
      row.model = folder.filename().string();
      row.where = where;
      for (char c : cells[0]) {
        if (c < '1' || c > '9')
          throw InputError(where + ": placement '" + cells[0] + "' must be digits 1-9 (GPUs per node)");
        row.gpus_per_node.push_back(c - '0');
      }
      if (row.gpus_per_node.empty()) throw InputError(where + ": empty placement");
      try {
        std::size_t used = 0;
        row.local_batch = std::stoi(cells[1], &used);
        if (used != cells[1].size() || row.local_batch < 1) throw std::invalid_argument("");
      } catch (const std::exception&) {
        throw InputError(where + ": local_bsz '" + cells[1] + "' must be an integer >= 1");
      }
      try {
        std::size_t used = 0;
        row.step_s = std::stod(cells[2], &used);
        if (used != cells[2].size() || !(row.step_s > 0) || !std::isfinite(row.step_s))
          throw std::invalid_argument("");
      } catch (const std::exception&) {
        throw InputError(where + ": step_time '" + cells[2] + "' must be a number > 0");
      }
      rows.push_back(std::move(row));
    }
  }
  if (rows.empty()) throw InputError(dir + ": no <model>/placements.csv of a catalog model");
  return rows;
}

}  // namespace vnsim
