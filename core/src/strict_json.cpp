#include "strict_json.hpp"

#include <climits>
#include <cmath>
#include <set>
#include <sstream>
#include <vector>

#include "vnsim/core/error.hpp"

namespace vnsim::strict_json {
namespace {

// Tracks where the parser is, so a duplicate key can be reported by path.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& source) : source_(source) {}

  bool on_event(Json::parse_event_t event, const Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start:
        frames_.push_back({true, {}, {}, 0});
        break;
      case E::array_start:
        frames_.push_back({false, {}, {}, 0});
        break;
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        element_done();
        break;
      case E::key: {
        Frame& f = frames_.back();
        f.last_key = parsed.get<std::string>();
        if (!f.keys.insert(f.last_key).second)
          throw InputError(source_ + ": " + current_path() + ": key appears twice in the same object");
        break;
      }
      case E::value:
        element_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;
    std::string last_key;
    std::size_t elements_done;
  };

  void element_done() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().elements_done;
  }

  std::string current_path() const {
    std::string path;
    for (const Frame& f : frames_)
      path = f.is_object ? field_path(path, f.last_key) : index_path(path, f.elements_done);
    return path;
  }

  const std::string& source_;
  std::vector<Frame> frames_;
};

std::string describe(const Json& value) {
  return value.dump();
}

std::string format_number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

Json parse_strict(const std::string& text, const std::string& source) {
  DuplicateKeyCheck check(source);
  try {
    return Json::parse(text, [&check](int, Json::parse_event_t event, Json& parsed) {
      return check.on_event(event, parsed);
    });
  } catch (const Json::parse_error& e) {
    throw InputError(source + ": invalid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
  } catch (const Json::exception& e) {  // e.g. a number too large for a double
    throw InputError(source + ": invalid JSON: " + e.what());
  }
}

std::string field_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

void Reader::fail(const std::string& path, const std::string& reason) const {
  const bool name_top_level = path.empty() && wording_ == Wording::detailed;
  throw InputError(source_ + ": " + (name_top_level ? std::string("(top level)") : path) + ": " + reason);
}

Json Reader::parse_object_document(const std::string& text) const {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    fail("(document)", std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object()) fail("(document)", "must be a JSON object");
  return doc;
}

void Reader::expect_object(const Json& value, const std::string& path) const {
  if (!value.is_object()) fail(path, "must be a JSON object, got " + describe(value));
}

void Reader::allow_only(const Json& object, const std::string& path,
                        const std::vector<std::string_view>& allowed) const {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || key == a;
    if (known) continue;
    if (wording_ == Wording::terse) fail(field_path(path, key), "unknown field");
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail(field_path(path, key), "unknown field (allowed here: " + list + ")");
  }
}

const Json* Reader::find(const Json& object, const std::string& key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const Json& Reader::require(const Json& object, const std::string& path, const std::string& key) const {
  const Json* v = find(object, key);
  if (v == nullptr)
    fail(field_path(path, key),
         wording_ == Wording::terse ? "missing required field" : "required field is missing");
  return *v;
}

std::string Reader::non_empty_string(const Json& value, const std::string& path) const {
  if (!value.is_string() || value.get<std::string>().empty())
    fail(path, "must be a non-empty string, got " + describe(value));
  return value.get<std::string>();
}

int Reader::positive_int(const Json& value, const std::string& path) const {
  const bool ok =
      value.is_number_unsigned()
          ? value.get<unsigned long long>() >= 1 && value.get<unsigned long long>() <= INT_MAX
          : value.is_number_integer() && value.get<long long>() >= 1 && value.get<long long>() <= INT_MAX;
  if (!ok) fail(path, "must be a positive integer, got " + describe(value));
  return value.get<int>();
}

double Reader::positive_number(const Json& value, const std::string& path) const {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || !(value.get<double>() > 0))
    fail(path, "must be a positive number, got " + describe(value));
  return value.get<double>();
}

double Reader::non_negative_number(const Json& value, const std::string& path) const {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || !(value.get<double>() >= 0))
    fail(path, "must be a non-negative number, got " + describe(value));
  return value.get<double>();
}

double Reader::finite_positive(const Json& value, const std::string& path) const {
  if (!value.is_number()) fail(path, "must be a number");
  const double x = value.get<double>();
  if (!(x > 0) || !std::isfinite(x)) fail(path, "must be a finite number > 0, got " + describe(value));
  return x;
}

double Reader::number_at_least(const Json& object, const std::string& path, const std::string& key,
                               double min) const {
  const Json& v = require(object, path, key);
  if (!v.is_number()) fail(field_path(path, key), "must be a number");
  const double x = v.get<double>();
  if (!(x >= min)) fail(field_path(path, key), "must be >= " + format_number(min) + ", got " + describe(v));
  return x;
}

int Reader::integer_at_least(const Json& object, const std::string& path, const std::string& key,
                             int min) const {
  const Json& v = require(object, path, key);
  if (!v.is_number_integer()) fail(field_path(path, key), "must be an integer");
  const auto x = v.get<long long>();
  if (x < min || x > 1'000'000'000)
    fail(field_path(path, key), "must be in [" + std::to_string(min) + ", 1e9], got " + describe(v));
  return static_cast<int>(x);
}

}  // namespace vnsim::strict_json
