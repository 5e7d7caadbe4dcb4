#include "vnsim/real_exec/transport_probe.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "vnsim/core/error.hpp"

namespace vnsim::real_exec {
namespace {

nlohmann::ordered_json points_json(const std::vector<ProbePoint>& points) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const ProbePoint& p : points)
    a.push_back({{"model", p.model}, {"bytes", p.bytes}, {"step_allreduce_s", p.seconds}});
  return a;
}

std::vector<ProbePoint> parse_points(const nlohmann::json& doc, const char* key, const std::string& source) {
  std::vector<ProbePoint> points;
  if (!doc.contains(key)) return points;
  const nlohmann::json& a = doc[key];
  if (!a.is_array()) throw InputError(source + ": field '" + key + "' must be an array");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string where = source + ": " + key + "[" + std::to_string(i) + "]";
    const nlohmann::json& e = a[i];
    if (!e.is_object() || !e.contains("model") || !e["model"].is_string() || !e.contains("bytes") ||
        !e["bytes"].is_number() || !e.contains("step_allreduce_s") || !e["step_allreduce_s"].is_number())
      throw InputError(where + ": needs 'model' (string), 'bytes' and 'step_allreduce_s' (numbers)");
    ProbePoint p{e["model"].get<std::string>(), e["bytes"].get<double>(),
                 e["step_allreduce_s"].get<double>()};
    if (!(p.bytes > 0) || !(p.seconds > 0))
      throw InputError(where + ": bytes and step_allreduce_s must be > 0");
    points.push_back(p);
  }
  return points;
}

double achievable_intra_Bps(const ClusterSpec& spec, const NodeSpec& node) {
  return node.intra.bandwidth_Bps * node.intra.efficiency * spec.link_efficiency;
}

}  // namespace

std::string transport_probe_json(const TransportProbe& probe) {
  nlohmann::ordered_json doc;
  doc["workers"] = probe.workers;
  doc["repetitions"] = probe.repetitions;
  doc["start"] = points_json(probe.start);
  doc["end"] = points_json(probe.end);
  return doc.dump(2) + "\n";
}

TransportProbe parse_transport_probe(const std::string& text, const std::string& source) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw InputError(source + ": not a JSON object");
  TransportProbe p;
  if (!doc.contains("workers") || !doc["workers"].is_number_integer() || doc["workers"].get<int>() < 2)
    throw InputError(source + ": field 'workers' must be an integer >= 2");
  p.workers = doc["workers"].get<int>();
  if (doc.contains("repetitions") && doc["repetitions"].is_number_integer())
    p.repetitions = doc["repetitions"].get<int>();
  p.start = parse_points(doc, "start", source);
  p.end = parse_points(doc, "end", source);
  return p;
}

RingFit testbed_ring(const ClusterSpec& spec) {
  if (spec.racks.size() != 1 || spec.racks[0].nodes.size() != 1)
    throw std::invalid_argument("testbed_ring: the spec has more than one node");
  const NodeSpec& node = spec.racks[0].nodes[0];
  RingFit r;
  r.hop_latency_s = testbed_hop_latency_s(node.intra.latency_s);
  r.bandwidth_Bps = achievable_intra_Bps(spec, node);
  return r;
}

void set_testbed_ring(ClusterSpec& spec, const RingFit& ring) {
  for (RackSpec& rack : spec.racks)
    for (NodeSpec& node : rack.nodes) {
      node.intra.latency_s = testbed_link_latency_s(ring.hop_latency_s);
      node.intra.bandwidth_Bps = ring.bandwidth_Bps / (node.intra.efficiency * spec.link_efficiency);
    }
}

std::optional<RingFit> probed_ring(const std::vector<ProbePoint>& points, const ClusterSpec& spec) {
  if (points.empty() || spec.racks.size() != 1 || spec.racks[0].nodes.size() != 1) return std::nullopt;
  const int workers = static_cast<int>(spec.racks[0].nodes[0].gpu_types.size());
  if (workers < 2) return std::nullopt;
  std::vector<std::pair<double, double>> xy;
  std::set<double> sizes;
  for (const ProbePoint& p : points) {
    xy.emplace_back(p.bytes, p.seconds);
    sizes.insert(p.bytes);
  }
  if (sizes.size() >= 2) return ring_from_alpha_beta(fit_alpha_beta(xy), workers);
  // One size: the spec's line, 2(N-1) (hop + (B/N) / bandwidth), scaled
  // through the measured point.
  RingFit r = testbed_ring(spec);
  const double steps = 2.0 * (workers - 1);
  const double bytes = xy[0].first;
  const double predicted = steps * (r.hop_latency_s + bytes / workers / r.bandwidth_Bps);
  const double scale = xy[0].second / predicted;
  r.hop_latency_s *= scale;
  r.bandwidth_Bps /= scale;
  return r;
}

}  // namespace vnsim::real_exec
