#include "output_tables.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "allocations_csv.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim::cli {

std::size_t Table::column(const std::string& name, const std::string& file) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  throw InputError(file + ": no column '" + name + "'");
}

Table read_table(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path.string() + ": cannot read (is this a vnsim replay output folder?)");
  Table t;
  std::string line;
  long n = 0;
  while (std::getline(f, line)) {
    ++n;
    auto fields = split_csv_line(line, path.string(), n);
    if (n == 1) {
      t.header = std::move(fields);
      continue;
    }
    if (fields.size() != t.header.size())
      throw InputError(path.string() + ":" + std::to_string(n) + ": expected " +
                       std::to_string(t.header.size()) + " fields, found " + std::to_string(fields.size()));
    t.rows.push_back(std::move(fields));
    t.lines.push_back(n);
  }
  if (t.header.empty()) throw InputError(path.string() + ": empty file");
  return t;
}

double number(const std::string& text, const std::string& where) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v))
    throw InputError(where + ": '" + text + "' is not a number");
  return v;
}

std::vector<GpuId> gpu_ids(const std::string& text, const std::string& where) {
  std::vector<GpuId> ids;
  std::istringstream in(text);
  std::string part;
  while (in >> part) {
    const std::size_t dash = part.find('-');
    const long first = std::lround(number(part.substr(0, dash), where));
    const long last = dash == std::string::npos ? first : std::lround(number(part.substr(dash + 1), where));
    if (last < first) throw InputError(where + ": interval '" + part + "' is reversed");
    for (long g = first; g <= last; ++g) ids.push_back(static_cast<GpuId>(g));
  }
  return ids;
}

}  // namespace vnsim::cli
