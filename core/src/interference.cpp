#include "vnsim/core/interference.hpp"

#include <stdexcept>

#include "strict_json.hpp"
#include "vnsim/core/embedded.hpp"

namespace vnsim {

using strict_json::field_path;
using strict_json::Json;
using strict_json::Reader;

const InterferenceTable& InterferenceTable::builtin() {
  static const InterferenceTable table = [] {
    const auto text = embedded_file("interference.json");
    if (!text) throw std::logic_error("interference.json is not embedded");
    return parse(std::string(*text), "interference.json");
  }();
  return table;
}

InterferenceTable InterferenceTable::parse(const std::string& json_text, const std::string& source_name) {
  const Reader r(source_name, strict_json::Wording::terse);
  const Json doc = r.parse_object_document(json_text);
  r.allow_only(doc, "", {"derived_by", "source", "default_fraction", "types"});
  InterferenceTable out;
  out.default_fraction_ = r.finite_positive(r.require(doc, "", "default_fraction"), "default_fraction");
  if (out.default_fraction_ > 1) r.fail("default_fraction", "must be <= 1");
  const Json& types = r.require(doc, "", "types");
  r.expect_object(types, "types");
  for (const auto& [type, families] : types.items()) {
    const std::string tpath = field_path("types", type);
    r.expect_object(families, tpath);
    for (const auto& [family, partners] : families.items()) {
      const std::string fpath = field_path(tpath, family);
      r.expect_object(partners, fpath);
      for (const auto& [partner, value] : partners.items()) {
        const std::string ppath = field_path(fpath, partner);
        const double fraction = r.non_negative_number(value, ppath);
        // Co-location never speeds a job up by more than measurement noise.
        if (fraction > 1.5) r.fail(ppath, "must be <= 1.5");
        out.table_[type][family][partner] = fraction;
      }
    }
  }
  return out;
}

const double* InterferenceTable::find(const std::string& gpu_type, const std::string& family,
                                      const std::string& partner) const {
  const auto t = table_.find(gpu_type);
  if (t == table_.end()) return nullptr;
  const auto f = t->second.find(family);
  if (f == t->second.end()) return nullptr;
  const auto p = f->second.find(partner);
  return p == f->second.end() ? nullptr : &p->second;
}

double InterferenceTable::fraction(const std::string& gpu_type, const std::string& family,
                                   const std::string& partner) const {
  const double* v = find(gpu_type, family, partner);
  return v != nullptr ? *v : default_fraction_;
}

bool InterferenceTable::measured(const std::string& gpu_type, const std::string& family,
                                 const std::string& partner) const {
  return find(gpu_type, family, partner) != nullptr;
}

}  // namespace vnsim
