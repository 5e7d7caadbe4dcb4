// Cluster specs from trace inventories (docs/TRACES.md, "Cluster specs from
// traces"). The link and rack rule is the one of scripts/make_philly_preset.py,
// so the Philly machine list gives the philly-2017 preset's cluster.
#include "vnsim/traces/cluster_from_inventory.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "gpu_type_names.hpp"
#include "line_reader.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"

namespace vnsim {
namespace {

using namespace traces_detail;
using nlohmann::ordered_json;

struct Machine {
  std::string name;
  int gpus = 0;
  std::string gpu_type;  // catalog name
};

// What one data row gives: a machine, or a reason to leave it out.
struct RowResult {
  Machine machine;
  std::string left_out;
};

const std::vector<std::string>& header_of(const std::string& format) {
  static const std::map<std::string, std::vector<std::string>> headers = {
      {"philly-machines", {"machineId", "number of GPUs", "single GPU mem"}},
      {"pai-machines", {"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"}},
      {"openb-nodes", {"sn", "cpu_milli", "memory_mib", "gpu", "model"}}};
  return headers.at(format);
}

std::vector<std::string> trimmed_fields(std::string_view line) {
  std::vector<std::string> out;
  for (auto f : split_commas(line)) out.emplace_back(trim(f));
  return out;
}

int gpu_count(const std::string& field, const std::string& column, bool zero_allowed) {
  const auto n = parse_integer(field);
  if (!n || *n < (zero_allowed ? 0 : 1) || *n > 1'000'000)
    throw RowError{column + " must be an integer >= " + (zero_allowed ? "0" : "1") + ", got '" + field + "'"};
  return static_cast<int>(*n);
}

// A trace GPU name through the user's map, then the built-in one; "" when
// the result is not in the GPU catalog.
std::string catalog_name(const std::string& trace_name, const InventoryOptions& options) {
  auto it = options.gpu_map.find(trace_name);
  const std::string name = it != options.gpu_map.end() ? it->second : catalog_gpu_type(trace_name);
  return GpuCatalog::builtin().find(name) ? name : "";
}

RowResult typed_machine(const std::string& name, int gpus, const std::string& type,
                        const InventoryOptions& options) {
  RowResult r;
  if (gpus == 0) {
    r.left_out = "CPU-only machine '" + name + "' (0 GPUs)";
    return r;
  }
  const std::string catalog = catalog_name(type, options);
  if (catalog.empty()) {
    r.left_out = "machine '" + name + "': GPU type '" + type +
                 "' is not in the GPU catalog (map it with --gpu-map " +
                 (type.empty() ? std::string("NAME") : type) + "=<catalog type>)";
    return r;
  }
  r.machine = Machine{name, gpus, catalog};
  return r;
}

RowResult parse_row(const std::string& format, const std::vector<std::string>& f,
                    const InventoryOptions& options) {
  if (f.size() != header_of(format).size())
    throw RowError{"expected " + std::to_string(header_of(format).size()) + " columns, got " +
                   std::to_string(f.size())};
  if (f[0].empty()) throw RowError{"empty machine name"};
  if (format == "philly-machines") {
    // Per-GPU memory names the GPU, as in scripts/make_philly_preset.py.
    static const std::map<std::string, std::string> by_memory = {{"12GB", "K80"}, {"24GB", "P40"}};
    auto it = by_memory.find(f[2]);
    if (it == by_memory.end()) throw RowError{"unknown GPU memory '" + f[2] + "' (expected 12GB or 24GB)"};
    return RowResult{Machine{f[0], gpu_count(f[1], "number of GPUs", false), it->second}, ""};
  }
  if (format == "pai-machines") return typed_machine(f[0], gpu_count(f[4], "cap_gpu", true), f[1], options);
  return typed_machine(f[0], gpu_count(f[3], "gpu", true), f[4], options);
}

ordered_json spec_json(const std::string& name, const std::string& source,
                       const std::vector<Machine>& machines, int per_rack) {
  ordered_json spec;
  spec["name"] = name;
  spec["description"] =
      "Built by 'vnsim trace cluster' from " + source +
      "; links and racks are the assumptions of docs/TRACES.md, \"Cluster specs from traces\"";
  spec["defaults"]["intra"] = {{"kind", "pcie"}, {"bandwidth_gbps", 126}, {"latency_us", 1}};
  spec["defaults"]["nic"] = {{"bandwidth_gbps", 100}, {"count", 1}, {"latency_us", 1}};
  spec["racks"] = ordered_json::array();
  for (std::size_t start = 0; start < machines.size(); start += static_cast<std::size_t>(per_rack)) {
    ordered_json rack;
    rack["name"] = "r" + std::to_string(spec["racks"].size());
    rack["oversubscription"] = 2;
    rack["uplink_latency_us"] = 1;
    rack["nodes"] = ordered_json::array();
    for (std::size_t i = start; i < machines.size() && i < start + static_cast<std::size_t>(per_rack); ++i)
      rack["nodes"].push_back(
          {{"name", machines[i].name}, {"gpus", machines[i].gpus}, {"gpu_type", machines[i].gpu_type}});
    spec["racks"].push_back(std::move(rack));
  }
  return spec;
}

std::string first_line_of(LineReader& reader) {
  std::string line;
  while (reader.next(line))
    if (!is_blank(line)) return line;
  throw InputError(reader.path() + ": empty inventory (no header line)");
}

}  // namespace

std::vector<std::string> inventory_format_names() {
  return {"philly-machines", "pai-machines", "openb-nodes"};
}

std::string detect_inventory_format(const std::string& path) {
  LineReader reader(path);
  const std::string line = first_line_of(reader);
  const auto fields = trimmed_fields(line);
  for (const auto& format : inventory_format_names())
    if (fields == header_of(format)) return format;
  throw input_error_at(
      path, reader.line_number(),
      "unrecognised inventory header '" + line +
          "' (expected 'machineId, number of GPUs, single GPU mem', "
          "'machine,gpu_type,cap_cpu,cap_mem,cap_gpu' or 'sn,cpu_milli,memory_mib,gpu,model')");
}

std::map<std::string, std::string> parse_gpu_map(const std::string& text) {
  std::map<std::string, std::string> map;
  for (auto item : split_commas(text)) {
    item = trim(item);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("--gpu-map: expected NAME=TYPE[,NAME=TYPE...], got '" + std::string(item) + "'");
    const std::string to(trim(item.substr(eq + 1)));
    if (!GpuCatalog::builtin().find(to)) {
      std::string known;
      for (const auto& n : GpuCatalog::builtin().names()) known += (known.empty() ? "" : ", ") + n;
      throw InputError("--gpu-map: '" + to + "' is not a GPU catalog type (known: " + known + ")");
    }
    map[std::string(trim(item.substr(0, eq)))] = to;
  }
  return map;
}

InventoryCluster cluster_from_inventory(const std::string& path, const InventoryOptions& options) {
  if (options.nodes_per_rack < 1) throw InputError("nodes per rack must be >= 1");
  InventoryCluster out;
  out.format = options.format.empty() ? detect_inventory_format(path) : options.format;
  const auto names = inventory_format_names();
  if (std::find(names.begin(), names.end(), out.format) == names.end())
    throw InputError("unknown inventory format '" + out.format +
                     "' (expected philly-machines, pai-machines or openb-nodes)");
  LineReader reader(path);
  const std::string header = first_line_of(reader);
  if (trimmed_fields(header) != header_of(out.format))
    throw input_error_at(path, reader.line_number(),
                         "header '" + header + "' is not the " + out.format + " header");

  std::vector<Machine> machines;
  std::map<std::string, long> line_of_name;
  std::string line;
  while (reader.next(line)) {
    if (is_blank(line)) continue;
    const long n = reader.line_number();
    RowResult r;
    try {
      r = parse_row(out.format, trimmed_fields(line), options);
    } catch (const RowError& e) {
      throw input_error_at(path, n, e.reason);
    }
    if (!r.left_out.empty()) {
      out.left_out.push_back(TraceIssue{path, n, r.left_out});
      continue;
    }
    const auto [it, inserted] = line_of_name.emplace(r.machine.name, n);
    if (!inserted)
      throw input_error_at(
          path, n,
          "duplicate machine '" + r.machine.name + "' (first on line " + std::to_string(it->second) + ")");
    out.gpus_by_type[r.machine.gpu_type] += r.machine.gpus;
    machines.push_back(std::move(r.machine));
  }
  if (machines.empty())
    throw InputError(path + ": no machine with GPUs of a known type, so no cluster to build");
  const std::string name = options.name.empty() ? std::filesystem::path(path).stem().string() : options.name;
  out.json =
      spec_json(name, std::filesystem::path(path).filename().string(), machines, options.nodes_per_rack)
          .dump(2) +
      "\n";
  out.spec = parse_cluster_spec(out.json, path + " (built cluster spec)");
  return out;
}

}  // namespace vnsim
