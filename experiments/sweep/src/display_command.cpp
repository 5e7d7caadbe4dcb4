// command.txt's text: the replay command without this machine's folders.
#include "vnsim/sweep/display_command.hpp"

#include <string_view>

namespace vnsim::sweep {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:";

std::string single_quoted(const std::string& s) {
  if (!s.empty() && s.find_first_not_of(kSafe) == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// "${VNSIM_SHARED}<rest>" in double quotes: the variable expands, nothing else does.
std::string shared_quoted(const std::string& rest) {
  std::string out = "\"${VNSIM_SHARED}";
  for (char c : rest) {
    if (c == '"' || c == '\\' || c == '$' || c == '`') out += '\\';
    out += c;
  }
  return out + "\"";
}

// `path` relative to `base` when it lies under it (lexically), "." when it
// is `base`, else "".
std::string relative_under(const fs::path& path, const fs::path& base) {
  if (!path.is_absolute() || base.empty()) return "";
  const fs::path rel = path.lexically_normal().lexically_relative(base.lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return "";
  return rel.string();
}

std::string display_argument(const std::string& arg, const std::string& shared_root, const fs::path& cwd) {
  if (!shared_root.empty()) {
    if (const std::string rel = relative_under(arg, shared_root); rel == ".")
      return shared_quoted("");
    else if (!rel.empty())
      return shared_quoted("/" + rel);
  }
  if (const std::string rel = relative_under(arg, cwd); !rel.empty()) return single_quoted(rel);
  return single_quoted(arg);
}

}  // namespace

std::string shared_path_label(const std::string& path, const std::string& shared_root) {
  if (shared_root.empty() || path.empty()) return path;
  const std::string rel = relative_under(fs::absolute(path), fs::absolute(shared_root));
  if (rel.empty()) return path;
  return rel == "." ? "${VNSIM_SHARED}" : "${VNSIM_SHARED}/" + rel;
}

std::string display_command(const std::vector<std::string>& argv, const std::string& shared_root,
                            const fs::path& cwd) {
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + display_argument(a, shared_root, cwd);
  return line;
}

}  // namespace vnsim::sweep
