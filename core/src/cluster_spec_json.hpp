#pragma once
// Strict JSON field access for the cluster spec parser. Every failure throws
// InputError "<source>: <json path>: <reason>", so a typo or a bad value in a
// large spec is found without guessing.
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

namespace vnsim::spec_json {

using Json = nlohmann::json;

// Parses `text`; malformed JSON and duplicate object keys (which nlohmann
// would silently resolve to the last one) are reported with the source name.
Json parse_strict(const std::string& text, const std::string& source);

std::string field_path(const std::string& parent, const std::string& key);
std::string index_path(const std::string& parent, std::size_t index);

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const;

  void expect_object(const Json& value, const std::string& path) const;
  // Rejects any key of `object` not in `allowed`.
  void allow_only(const Json& object, const std::string& path,
                  std::initializer_list<const char*> allowed) const;
  // nullptr when `key` is absent; `object` must already be an object.
  static const Json* find(const Json& object, const char* key);
  const Json& require(const Json& object, const std::string& path, const char* key) const;

  std::string non_empty_string(const Json& value, const std::string& path) const;
  int positive_int(const Json& value, const std::string& path) const;
  double positive_number(const Json& value, const std::string& path) const;
  double non_negative_number(const Json& value, const std::string& path) const;

 private:
  std::string source_;
};

}  // namespace vnsim::spec_json
