#include "vnsim/core/throughput_profile.hpp"

#include <algorithm>
#include <stdexcept>

#include "strict_json.hpp"
#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {

using strict_json::field_path;
using strict_json::index_path;
using strict_json::Json;
using strict_json::Reader;

ThroughputProfile::ThroughputProfile(std::vector<std::pair<int, double>> points) {
  if (points.empty()) throw std::invalid_argument("ThroughputProfile: no points");
  double slowest = 0;
  int last_batch = 0;
  for (const auto& [batch, samples_per_s] : points) {
    if (batch <= last_batch) throw std::invalid_argument("ThroughputProfile: batches must increase");
    if (!(samples_per_s > 0)) throw std::invalid_argument("ThroughputProfile: throughput must be > 0");
    slowest = std::max(slowest, batch / samples_per_s);
    points_.emplace_back(batch, slowest);
    last_batch = batch;
  }
}

double ThroughputProfile::step_s(double m) const {
  if (m > max_batch())
    throw std::invalid_argument("ThroughputProfile: batch " + std::to_string(m) + " above the profiled " +
                                std::to_string(max_batch()));
  if (m <= points_.front().first) return points_.front().second;
  const auto hi = std::lower_bound(points_.begin(), points_.end(), m,
                                   [](const std::pair<int, double>& p, double x) { return p.first < x; });
  const auto lo = hi - 1;
  const double f = (m - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

GpuTypeGroup ThroughputProfile::group(const std::string& type, int gpus) const {
  return GpuTypeGroup{type, gpus, [profile = *this](double m) { return profile.step_s(m); }, max_batch()};
}

const ThroughputProfiles& ThroughputProfiles::builtin() {
  static const ThroughputProfiles profiles = [] {
    const auto text = embedded_file("throughput_profiles.json");
    if (!text) throw std::logic_error("throughput_profiles.json is not embedded");
    return parse(std::string(*text), "throughput_profiles.json");
  }();
  return profiles;
}

ThroughputProfiles ThroughputProfiles::parse(const std::string& json_text, const std::string& source_name) {
  const Reader r(source_name, strict_json::Wording::terse);
  const Json doc = r.parse_object_document(json_text);
  r.allow_only(doc, "", {"derived_by", "source", "unit", "model_family", "families"});
  ThroughputProfiles out;
  const Json& families = r.require(doc, "", "families");
  r.expect_object(families, "families");
  for (const auto& [family, types] : families.items()) {
    const std::string fpath = field_path("families", family);
    r.expect_object(types, fpath);
    for (const auto& [type, points] : types.items()) {
      const std::string tpath = field_path(fpath, type);
      if (!points.is_array() || points.empty())
        r.fail(tpath, "must be a non-empty array of [batch, samples/s]");
      std::vector<std::pair<int, double>> parsed;
      for (std::size_t i = 0; i < points.size(); ++i) {
        const std::string ppath = index_path(tpath, i);
        const Json& p = points[i];
        if (!p.is_array() || p.size() != 2) r.fail(ppath, "must be [batch, samples/s]");
        const int batch = r.positive_int(p[0], index_path(ppath, 0));
        if (!parsed.empty() && batch <= parsed.back().first) r.fail(ppath, "batches must increase");
        parsed.emplace_back(batch, r.finite_positive(p[1], index_path(ppath, 1)));
      }
      out.families_[family].emplace(type, ThroughputProfile(std::move(parsed)));
    }
  }
  if (const Json* mapping = Reader::find(doc, "model_family")) {
    r.expect_object(*mapping, "model_family");
    for (const auto& [model, family] : mapping->items()) {
      const std::string path = field_path("model_family", model);
      const std::string name = r.non_empty_string(family, path);
      if (!out.families_.contains(name)) r.fail(path, "unknown family '" + name + "'");
      out.model_family_.emplace(model, name);
    }
  }
  return out;
}

const ThroughputProfile* ThroughputProfiles::find(const std::string& family,
                                                  const std::string& gpu_type) const {
  const auto f = families_.find(family);
  if (f == families_.end()) return nullptr;
  const auto t = f->second.find(gpu_type);
  return t == f->second.end() ? nullptr : &t->second;
}

std::optional<std::string> ThroughputProfiles::family_of_model(const std::string& model) const {
  const auto it = model_family_.find(model);
  if (it == model_family_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> ThroughputProfiles::families() const {
  std::vector<std::string> names;
  for (const auto& [name, types] : families_) names.push_back(name);
  return names;
}

}  // namespace vnsim
