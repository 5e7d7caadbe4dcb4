#include "vnsim/core/staged_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <system_error>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace fs = std::filesystem;

void remove_orphaned_staging(const fs::path& parent, const std::string& name, const std::string& kind) {
  const std::string prefix = "." + name + "." + kind + "-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(prefix, 0) != 0) continue;
    long pid = 0;
    const char* first = file.data() + prefix.size();
    const auto [end, err] = std::from_chars(first, file.data() + file.size(), pid);
    if (err != std::errc() || end != file.data() + file.size() || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

StagedFile::StagedFile(const fs::path& final_path) : final_(final_path) {
  if (final_.empty() || !final_.has_filename())
    throw InputError("output '" + final_.string() + "': not a file name");
  std::error_code ec;
  if (fs::is_directory(final_, ec)) throw InputError("output " + final_.string() + ": is a folder");
  const fs::path parent = final_.has_parent_path() ? final_.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) throw InputError("output " + final_.string() + ": cannot create its folder (" + ec.message() + ")");
  const std::string name = final_.filename().string();
  remove_orphaned_staging(parent, name, "partial");
  staging_ = parent / ("." + name + ".partial-" + std::to_string(::getpid()));
}

StagedFile::~StagedFile() {
  if (committed_) return;
  std::error_code ec;
  fs::remove(staging_, ec);
}

void StagedFile::commit() {
  std::error_code ec;
  fs::rename(staging_, final_, ec);
  if (ec)
    throw InputError("output " + final_.string() + ": cannot move it into place (" + ec.message() + ")");
  committed_ = true;
}

}  // namespace vnsim
