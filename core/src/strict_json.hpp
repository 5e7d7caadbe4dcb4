#pragma once
// Strict JSON field access for the cluster spec parser and the GPU and model
// catalogs. Every failure throws InputError "<source>: <json path>: <reason>",
// so a typo or a bad value in a large hand-edited file is found without
// guessing.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace vnsim::strict_json {

using Json = nlohmann::json;

// Parses `text`; malformed JSON and duplicate object keys (which nlohmann
// would silently resolve to the last one) are reported with the source name.
Json parse_strict(const std::string& text, const std::string& source);

std::string field_path(const std::string& parent, const std::string& key);
std::string index_path(const std::string& parent, std::size_t index);

// The cluster spec and the catalogs word a few failures differently, and
// both wordings are matched on by tests and users, so each keeps its own.
enum class Wording {
  // "(top level)" for the empty path, "required field is missing",
  // "unknown field (allowed here: <keys>)". Used by the cluster spec.
  detailed,
  // The path as given, "missing required field", "unknown field". Used by
  // the catalogs.
  terse,
};

class Reader {
 public:
  explicit Reader(std::string source, Wording wording = Wording::detailed)
      : source_(std::move(source)), wording_(wording) {}

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const;

  // For the catalogs: `text` must be one JSON object; errors name the path
  // "(document)". Unlike parse_strict, a duplicate key silently keeps the last
  // value.
  Json parse_object_document(const std::string& text) const;

  void expect_object(const Json& value, const std::string& path) const;
  // Rejects any key of `object` not in `allowed`: a typo in a hand-edited
  // file would otherwise be silently ignored.
  void allow_only(const Json& object, const std::string& path,
                  const std::vector<std::string_view>& allowed) const;
  // nullptr when `key` is absent; `object` must already be an object.
  static const Json* find(const Json& object, const std::string& key);
  const Json& require(const Json& object, const std::string& path, const std::string& key) const;

  std::string non_empty_string(const Json& value, const std::string& path) const;
  int positive_int(const Json& value, const std::string& path) const;
  double positive_number(const Json& value, const std::string& path) const;
  double non_negative_number(const Json& value, const std::string& path) const;

  // The catalogs' numeric checks; the message states the bound.
  double finite_positive(const Json& value, const std::string& path) const;
  double number_at_least(const Json& object, const std::string& path, const std::string& key,
                         double min) const;
  // Capped at 1e9 so that a typo cannot overflow an int.
  int integer_at_least(const Json& object, const std::string& path, const std::string& key, int min) const;

 private:
  std::string source_;
  Wording wording_;
};

}  // namespace vnsim::strict_json
