#pragma once
// What a finished sweep run depended on, so that resume re-runs it when any
// of it changed (docs/EXPERIMENTS.md, "Resume"): the vnsim binary's bytes,
// the replay's options, and the bytes of every file the options name (trace,
// cluster spec, model rules, node events). Stored as input_key.txt in the run
// folder, one "kind name hash" line per part, so a difference can be named.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vnsim::sweep {

// 64-bit FNV-1a of a file's bytes, read in large blocks; throws
// std::runtime_error when it cannot be read.
std::uint64_t hash_file(const std::string& path);

class InputKeyer {
 public:
  explicit InputKeyer(std::string binary_path);
  // The key text for a replay with these arguments (without "--out DIR").
  std::string key(const std::vector<std::string>& replay_args);

 private:
  std::uint64_t cached_hash(const std::string& path);
  std::string binary_path_;
  std::map<std::string, std::uint64_t> file_hashes_;  // each file read once per sweep
};

// Empty when `stored` and `current` agree, else what changed, for a message
// ("trace file X changed", "the vnsim binary changed", ...). A missing stored
// key (a run finished by an older vnsim) counts as a change.
std::string input_key_change(const std::string& stored, const std::string& current);

}  // namespace vnsim::sweep
