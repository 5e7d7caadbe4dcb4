#include "vnsim/sweep/run_inputs_key.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace vnsim::sweep {
namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

std::uint64_t fnv1a(std::uint64_t h, const char* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= kFnvPrime;
  }
  return h;
}

std::string hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::map<std::string, std::string> parts_of(const std::string& key) {
  std::map<std::string, std::string> parts;  // "kind name" -> hash
  std::istringstream in(key);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t last = line.rfind(' ');
    if (last != std::string::npos) parts[line.substr(0, last)] = line.substr(last + 1);
  }
  return parts;
}

std::string describe(const std::string& part) {
  if (part == "binary vnsim") return "the vnsim binary changed";
  if (part == "options replay") return "the replay options changed";
  return part + " changed";
}

}  // namespace

std::uint64_t hash_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read to hash it");
  std::vector<char> block(1 << 20);
  std::uint64_t h = kFnvOffset;
  while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0)
    h = fnv1a(h, block.data(), static_cast<std::size_t>(in.gcount()));
  return h;
}

InputKeyer::InputKeyer(std::string binary_path) : binary_path_(std::move(binary_path)) {}

std::uint64_t InputKeyer::cached_hash(const std::string& path) {
  auto it = file_hashes_.find(path);
  if (it == file_hashes_.end()) it = file_hashes_.emplace(path, hash_file(path)).first;
  return it->second;
}

std::string InputKeyer::key(const std::vector<std::string>& replay_args) {
  std::string options;
  for (const auto& a : replay_args) options += a + '\x1f';
  std::string key = "binary vnsim " + hex(cached_hash(binary_path_)) + "\n";
  key += "options replay " + hex(fnv1a(kFnvOffset, options.data(), options.size())) + "\n";
  for (const auto& a : replay_args) {
    std::error_code ec;
    if (a.rfind("--", 0) != 0 && std::filesystem::is_regular_file(a, ec))
      key += "file " + a + " " + hex(cached_hash(a)) + "\n";
  }
  return key;
}

std::string input_key_change(const std::string& stored, const std::string& current) {
  if (stored.empty()) return "no input_key.txt (finished by an older vnsim)";
  const auto before = parts_of(stored), now = parts_of(current);
  std::string what;
  for (const auto& [part, hash] : now) {
    auto it = before.find(part);
    if (it == before.end() || it->second != hash) what += (what.empty() ? "" : "; ") + describe(part);
  }
  for (const auto& [part, hash] : before)
    if (!now.count(part)) what += (what.empty() ? "" : "; ") + part + " no longer used";
  return what;
}

}  // namespace vnsim::sweep
