#include "vnsim/sim/node_events.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "vnsim/core/error.hpp"
#include "vnsim/core/text_file.hpp"

namespace vnsim {
namespace {

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) out.push_back(trim_blanks(cell));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

double number(const std::string& text, const std::string& source, long line, const char* column) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v))
    throw input_error_at(source, line, std::string(column) + ": '" + text + "' is not a finite number");
  return v;
}

}  // namespace

std::vector<NodeEvent> parse_node_events(const std::string& text, const std::string& source,
                                         const Cluster& cluster) {
  std::map<std::string, NodeId> by_name;
  for (const NodeInfo& n : cluster.nodes()) by_name.emplace(n.name, n.id);
  std::vector<NodeEvent> events;
  std::istringstream in(text);
  std::string raw;
  long line = 0;
  bool header_seen = false;
  while (std::getline(in, raw)) {
    ++line;
    const std::string row = trim_blanks(raw);
    if (row.empty() || row.front() == '#') continue;
    const std::vector<std::string> cells = split_commas(row);
    if (!header_seen) {
      if (cells != std::vector<std::string>{"time_s", "node", "down_s"})
        throw input_error_at(source, line, "expected the header 'time_s,node,down_s', got '" + row + "'");
      header_seen = true;
      continue;
    }
    if (cells.size() != 3)
      throw input_error_at(source, line,
                           "expected 3 fields (time_s,node,down_s), got " + std::to_string(cells.size()));
    NodeEvent e;
    e.time_s = number(cells[0], source, line, "time_s");
    if (e.time_s < 0) throw input_error_at(source, line, "time_s must be >= 0, got " + cells[0]);
    const auto node = by_name.find(cells[1]);
    if (node == by_name.end())
      throw input_error_at(source, line,
                           "node '" + cells[1] + "' is not in cluster '" + cluster.spec().name + "'");
    e.node = node->second;
    e.down_s = number(cells[2], source, line, "down_s");
    if (e.down_s <= 0) throw input_error_at(source, line, "down_s must be > 0, got " + cells[2]);
    events.push_back(e);
  }
  if (!header_seen)
    throw InputError(source + ": empty node-event file (expected the header time_s,node,down_s)");
  return events;
}

std::vector<NodeEvent> read_node_events(const std::string& path, const Cluster& cluster) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open the node-event file");
  std::stringstream text;
  text << f.rdbuf();
  return parse_node_events(text.str(), path, cluster);
}

}  // namespace vnsim
