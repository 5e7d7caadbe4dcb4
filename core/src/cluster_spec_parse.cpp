// JSON -> ClusterSpec, validating as it goes so that each error can name the
// exact JSON path. The format is documented in docs/CLUSTER_SPEC.md.
#include <map>
#include <optional>

#include "strict_json.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/units.hpp"

namespace vnsim {
namespace {

using strict_json::field_path;
using strict_json::index_path;
using strict_json::Json;
using strict_json::Reader;

// A `count` typo (e.g. 1e9) must become an error, not an out-of-memory.
constexpr long long kMaxNodes = 1'000'000;

// Node settings that may come from the node entry or from `defaults`;
// empty optionals mean "not given here".
struct PartialIntra {
  std::optional<IntraLinkKind> kind;
  std::optional<double> bandwidth_Bps;
  std::optional<double> latency_s;
  std::optional<double> efficiency;
};

struct PartialNic {
  std::optional<double> bandwidth_Bps;
  std::optional<int> count;
  std::optional<double> latency_s;
  std::optional<double> efficiency;
};

struct NodeDefaults {
  PartialIntra intra;
  PartialNic nic;
  std::optional<int> gpus;
  std::optional<std::string> gpu_type;
};

template <typename T>
T value_or_default(const std::optional<T>& own, const std::optional<T>& fallback, T builtin_default) {
  if (own) return *own;
  if (fallback) return *fallback;
  return builtin_default;
}

class SpecParser {
 public:
  explicit SpecParser(const std::string& source) : in_(source) {}

  ClusterSpec parse(const Json& root) {
    in_.expect_object(root, "");
    in_.allow_only(root, "",
                   {"name", "description", "link_efficiency", "spine", "elasticity", "defaults", "racks"});
    ClusterSpec spec;
    spec.name = in_.non_empty_string(in_.require(root, "", "name"), "name");
    if (const Json* d = Reader::find(root, "description")) in_.non_empty_string(*d, "description");
    if (const Json* e = Reader::find(root, "link_efficiency")) {
      spec.link_efficiency = in_.positive_number(*e, "link_efficiency");
      if (spec.link_efficiency > 1) in_.fail("link_efficiency", "must be in (0, 1], got " + e->dump());
    }
    if (const Json* s = Reader::find(root, "spine")) {
      in_.expect_object(*s, "spine");
      in_.allow_only(*s, "spine", {"latency_us"});
      if (const Json* l = Reader::find(*s, "latency_us"))
        spec.spine_latency_s = units::us_to_s(in_.non_negative_number(*l, "spine.latency_us"));
    }
    if (const Json* e = Reader::find(root, "elasticity"))
      spec.elasticity = parse_elasticity(*e, "elasticity");
    NodeDefaults defaults;
    if (const Json* d = Reader::find(root, "defaults")) defaults = parse_defaults(*d, "defaults");

    const Json& racks = in_.require(root, "", "racks");
    if (!racks.is_array() || racks.empty()) in_.fail("racks", "must be a non-empty array of racks");
    for (std::size_t r = 0; r < racks.size(); ++r)
      spec.racks.push_back(parse_rack(racks[r], index_path("racks", r), defaults));
    return spec;
  }

 private:
  NodeDefaults parse_defaults(const Json& d, const std::string& path) {
    in_.expect_object(d, path);
    in_.allow_only(d, path, {"intra", "nic", "gpu_type", "gpus"});
    NodeDefaults out;
    if (const Json* v = Reader::find(d, "intra")) out.intra = parse_intra(*v, field_path(path, "intra"));
    if (const Json* v = Reader::find(d, "nic")) out.nic = parse_nic(*v, field_path(path, "nic"));
    if (const Json* v = Reader::find(d, "gpus")) out.gpus = in_.positive_int(*v, field_path(path, "gpus"));
    if (const Json* v = Reader::find(d, "gpu_type"))
      out.gpu_type = gpu_type(*v, field_path(path, "gpu_type"));
    return out;
  }

  PartialIntra parse_intra(const Json& j, const std::string& path) {
    in_.expect_object(j, path);
    in_.allow_only(j, path,
                   {"kind", "bandwidth_gbps", "links", "link_bandwidth_gbps", "latency_us", "efficiency"});
    PartialIntra out;
    if (const Json* k = Reader::find(j, "kind")) {
      const std::string kind = k->is_string() ? k->get<std::string>() : std::string();
      if (kind == "nvlink") {
        out.kind = IntraLinkKind::NVLink;
      } else if (kind == "pcie") {
        out.kind = IntraLinkKind::PCIe;
      } else {
        in_.fail(field_path(path, "kind"), "must be \"nvlink\" or \"pcie\", got " + k->dump());
      }
    }
    if (const Json* v = Reader::find(j, "bandwidth_gbps"))
      out.bandwidth_Bps = units::gbps_to_Bps(in_.positive_number(*v, field_path(path, "bandwidth_gbps")));
    // NVLink count x per-link rate, as datasheets give it (H100 SXM: 18 x 200 Gb/s).
    const Json* links = Reader::find(j, "links");
    const Json* per_link = Reader::find(j, "link_bandwidth_gbps");
    if ((links != nullptr) != (per_link != nullptr))
      in_.fail(field_path(path, links ? "link_bandwidth_gbps" : "links"),
               "required with " + std::string(links ? "links" : "link_bandwidth_gbps"));
    if (links) {
      if (out.bandwidth_Bps)
        in_.fail(field_path(path, "links"), "give either bandwidth_gbps or links, not both");
      out.bandwidth_Bps =
          in_.positive_int(*links, field_path(path, "links")) *
          units::gbps_to_Bps(in_.positive_number(*per_link, field_path(path, "link_bandwidth_gbps")));
    }
    if (const Json* v = Reader::find(j, "latency_us"))
      out.latency_s = units::us_to_s(in_.non_negative_number(*v, field_path(path, "latency_us")));
    if (const Json* v = Reader::find(j, "efficiency"))
      out.efficiency = efficiency(*v, field_path(path, "efficiency"));
    return out;
  }

  double efficiency(const Json& v, const std::string& path) const {
    const double e = in_.positive_number(v, path);
    if (e > 1) in_.fail(path, "must be in (0, 1], got " + v.dump());
    return e;
  }

  PartialNic parse_nic(const Json& j, const std::string& path) {
    in_.expect_object(j, path);
    in_.allow_only(j, path, {"bandwidth_gbps", "count", "latency_us", "efficiency"});
    PartialNic out;
    if (const Json* v = Reader::find(j, "bandwidth_gbps"))
      out.bandwidth_Bps = units::gbps_to_Bps(in_.positive_number(*v, field_path(path, "bandwidth_gbps")));
    if (const Json* v = Reader::find(j, "count")) out.count = in_.positive_int(*v, field_path(path, "count"));
    if (const Json* v = Reader::find(j, "latency_us"))
      out.latency_s = units::us_to_s(in_.non_negative_number(*v, field_path(path, "latency_us")));
    if (const Json* v = Reader::find(j, "efficiency"))
      out.efficiency = efficiency(*v, field_path(path, "efficiency"));
    return out;
  }

  std::string gpu_type(const Json& j, const std::string& path) const {
    const std::string name = in_.non_empty_string(j, path);
    if (GpuCatalog::builtin().find(name) == nullptr) {
      std::string known;
      for (const std::string& n : GpuCatalog::builtin().names()) known += (known.empty() ? "" : ", ") + n;
      in_.fail(path, "unknown GPU type '" + name + "' (known: " + known + ")");
    }
    return name;
  }

  RackSpec parse_rack(const Json& j, const std::string& path, const NodeDefaults& defaults) {
    in_.expect_object(j, path);
    in_.allow_only(j, path, {"name", "oversubscription", "uplink_latency_us", "nodes"});
    RackSpec rack;
    rack.name = in_.non_empty_string(in_.require(j, path, "name"), field_path(path, "name"));
    claim_name(rack.name, field_path(path, "name"));
    if (const Json* v = Reader::find(j, "oversubscription"))
      rack.oversubscription = in_.positive_number(*v, field_path(path, "oversubscription"));
    if (const Json* v = Reader::find(j, "uplink_latency_us"))
      rack.uplink_latency_s =
          units::us_to_s(in_.non_negative_number(*v, field_path(path, "uplink_latency_us")));
    const Json& nodes = in_.require(j, path, "nodes");
    const std::string nodes_path = field_path(path, "nodes");
    if (!nodes.is_array() || nodes.empty()) in_.fail(nodes_path, "must be a non-empty array of nodes");
    for (std::size_t n = 0; n < nodes.size(); ++n)
      parse_node_entry(nodes[n], index_path(nodes_path, n), defaults, rack.nodes);
    return rack;
  }

  ElasticitySpec parse_elasticity(const Json& j, const std::string& path) {
    in_.expect_object(j, path);
    in_.allow_only(
        j, path,
        {"storage_bandwidth_gbps", "restart_delay_s", "communicator_setup_s", "restart_delay_by_model_s"});
    ElasticitySpec e;
    if (const Json* v = Reader::find(j, "storage_bandwidth_gbps"))
      e.storage_bandwidth_Bps =
          units::gbps_to_Bps(in_.positive_number(*v, field_path(path, "storage_bandwidth_gbps")));
    if (const Json* v = Reader::find(j, "restart_delay_s"))
      e.restart_delay_s = in_.non_negative_number(*v, field_path(path, "restart_delay_s"));
    if (const Json* v = Reader::find(j, "communicator_setup_s"))
      e.communicator_setup_s = in_.non_negative_number(*v, field_path(path, "communicator_setup_s"));
    if (const Json* by_model = Reader::find(j, "restart_delay_by_model_s")) {
      const std::string sub = field_path(path, "restart_delay_by_model_s");
      in_.expect_object(*by_model, sub);
      for (const auto& [model, delay] : by_model->items())
        e.restart_delay_by_model_s[model] = in_.non_negative_number(delay, field_path(sub, model));
    }
    return e;
  }

  // One entry may stand for `count` identical nodes.
  void parse_node_entry(const Json& j, const std::string& path, const NodeDefaults& defaults,
                        std::vector<NodeSpec>& out) {
    in_.expect_object(j, path);
    in_.allow_only(j, path,
                   {"name", "name_prefix", "count", "gpus", "gpu_type", "gpu_types", "intra", "nic", "spot"});
    const Json* name = Reader::find(j, "name");
    const Json* prefix = Reader::find(j, "name_prefix");
    if ((name == nullptr) == (prefix == nullptr))
      in_.fail(path, "give exactly one of \"name\" and \"name_prefix\"");
    const Json* count_json = Reader::find(j, "count");
    const int count = count_json ? in_.positive_int(*count_json, field_path(path, "count")) : 1;
    node_total_ += count;
    if (node_total_ > kMaxNodes)
      in_.fail(field_path(path, "count"), "cluster would exceed " + std::to_string(kMaxNodes) + " nodes");

    NodeSpec node;
    if (const Json* v = Reader::find(j, "spot")) {
      if (!v->is_boolean()) in_.fail(field_path(path, "spot"), "must be true or false, got " + v->dump());
      node.spot = v->get<bool>();
    }
    node.gpu_types = parse_node_gpus(j, path, defaults);
    resolve_links(j, path, defaults, node);

    if (name != nullptr) {
      const std::string base = in_.non_empty_string(*name, field_path(path, "name"));
      if (count_json == nullptr) {
        node.name = base;
        claim_name(node.name, path);
        out.push_back(node);
        return;
      }
      for (int i = 0; i < count; ++i) {
        node.name = base + "-" + std::to_string(i);
        claim_name(node.name, path);
        out.push_back(node);
      }
      return;
    }
    const std::string base = in_.non_empty_string(*prefix, field_path(path, "name_prefix"));
    for (int i = 0; i < count; ++i) {
      node.name = base + std::to_string(i);
      claim_name(node.name, path);
      out.push_back(node);
    }
  }

  std::vector<std::string> parse_node_gpus(const Json& j, const std::string& path,
                                           const NodeDefaults& defaults) {
    if (const Json* types = Reader::find(j, "gpu_types")) {
      const std::string types_path = field_path(path, "gpu_types");
      if (Reader::find(j, "gpus") != nullptr || Reader::find(j, "gpu_type") != nullptr)
        in_.fail(types_path, "give either gpu_types or gpus + gpu_type, not both");
      if (!types->is_array() || types->empty())
        in_.fail(types_path, "must be a non-empty array of GPU type names, got " + types->dump());
      std::vector<std::string> out;
      for (std::size_t i = 0; i < types->size(); ++i)
        out.push_back(gpu_type((*types)[i], index_path(types_path, i)));
      return out;
    }
    std::optional<int> gpus = defaults.gpus;
    if (const Json* v = Reader::find(j, "gpus")) gpus = in_.positive_int(*v, field_path(path, "gpus"));
    if (!gpus)
      in_.fail(field_path(path, "gpus"), "required field is missing (give it here or in defaults.gpus)");
    std::optional<std::string> type = defaults.gpu_type;
    if (const Json* v = Reader::find(j, "gpu_type")) type = gpu_type(*v, field_path(path, "gpu_type"));
    if (!type)
      in_.fail(field_path(path, "gpu_type"),
               "required field is missing (give it here or in defaults.gpu_type)");
    return std::vector<std::string>(static_cast<std::size_t>(*gpus), *type);
  }

  void resolve_links(const Json& j, const std::string& path, const NodeDefaults& defaults, NodeSpec& node) {
    PartialIntra intra;
    if (const Json* v = Reader::find(j, "intra")) intra = parse_intra(*v, field_path(path, "intra"));
    PartialNic nic;
    if (const Json* v = Reader::find(j, "nic")) nic = parse_nic(*v, field_path(path, "nic"));

    const std::string intra_path = field_path(path, "intra");
    const std::string nic_path = field_path(path, "nic");
    node.intra.kind = required(intra.kind, defaults.intra.kind, intra_path, "kind");
    node.intra.bandwidth_Bps =
        required(intra.bandwidth_Bps, defaults.intra.bandwidth_Bps, intra_path, "bandwidth_gbps");
    node.intra.latency_s = value_or_default(intra.latency_s, defaults.intra.latency_s, 0.0);
    node.nic_bandwidth_Bps =
        required(nic.bandwidth_Bps, defaults.nic.bandwidth_Bps, nic_path, "bandwidth_gbps");
    node.nic_count = value_or_default(nic.count, defaults.nic.count, 1);
    node.nic_latency_s = value_or_default(nic.latency_s, defaults.nic.latency_s, 0.0);
    node.intra.efficiency = value_or_default(intra.efficiency, defaults.intra.efficiency, 1.0);
    node.nic_efficiency = value_or_default(nic.efficiency, defaults.nic.efficiency, 1.0);
  }

  // A link field with no built-in default: the node or `defaults` must give it.
  template <typename T>
  T required(const std::optional<T>& own, const std::optional<T>& fallback, const std::string& block,
             const char* key) const {
    if (own) return *own;
    if (fallback) return *fallback;
    const std::string block_name = block.substr(block.rfind('.') + 1);
    in_.fail(field_path(block, key),
             "required field is missing (give it here or in defaults." + block_name + "." + key + ")");
  }

  // Rack and node names share one namespace: the simulator names zones and
  // links after them, so a clash would make two things indistinguishable.
  void claim_name(const std::string& name, const std::string& path) {
    auto [it, fresh] = name_owner_.emplace(name, path);
    if (!fresh) in_.fail(path, "name '" + name + "' is already used at " + it->second);
  }

  Reader in_;
  std::map<std::string, std::string> name_owner_;
  long long node_total_ = 0;
};

}  // namespace

ClusterSpec parse_cluster_spec(const std::string& json_text, const std::string& source_name) {
  return SpecParser(source_name).parse(strict_json::parse_strict(json_text, source_name));
}

}  // namespace vnsim
