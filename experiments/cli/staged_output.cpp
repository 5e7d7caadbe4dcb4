#include "staged_output.hpp"

#include <unistd.h>

#include <system_error>

#include "vnsim/core/error.hpp"
#include "vnsim/core/staged_file.hpp"

namespace vnsim::cli {
namespace {

namespace fs = std::filesystem;

// A filesystem failure on --out is the user's (a read-only place, /proc, a
// full disk): exit 2 with the path and the reason, not an internal error.
[[noreturn]] void out_error(const fs::path& path, const std::string& what, const std::error_code& ec) {
  throw InputError("--out " + path.string() + ": " + what + " (" + ec.message() + ")");
}

}  // namespace

StagedOutput::StagedOutput(const fs::path& final_dir) : final_(final_dir) {
  if (final_.empty()) throw InputError("--out: empty path");
  if (!final_.has_filename()) final_ = final_.parent_path();  // "D/" names D
  std::error_code ec;
  const fs::file_status status = fs::status(final_, ec);
  if (fs::exists(status) && !fs::is_directory(status))
    throw InputError("--out " + final_.string() + ": exists and is not a folder");
  const fs::path parent = final_.has_parent_path() ? final_.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) out_error(final_, "cannot create its parent folder", ec);
  const std::string name = final_.filename().string();
  remove_orphaned_staging(parent, name, "partial");
  remove_orphaned_staging(parent, name, "previous");
  staging_ = parent / ("." + name + ".partial-" + std::to_string(::getpid()));
  previous_ = parent / ("." + name + ".previous-" + std::to_string(::getpid()));
  fs::remove_all(staging_, ec);  // left by a killed run whose pid we now have
  if (!fs::create_directory(staging_, ec) || ec) out_error(final_, "cannot create a folder beside it", ec);
}

StagedOutput::~StagedOutput() {
  discard();
}

void StagedOutput::withdraw_previous(const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_ || !fs::is_directory(final_)) return;
  std::error_code ec;
  for (const std::string& file : names) {
    if (!fs::exists(final_ / file)) continue;
    if (withdrawn_.empty()) {
      fs::create_directory(previous_, ec);
      if (ec) out_error(final_, "cannot create a folder beside it", ec);
    }
    fs::rename(final_ / file, previous_ / file, ec);
    if (ec) out_error(final_, "cannot set " + file + " of the previous run aside", ec);
    withdrawn_.push_back(file);
  }
}

void StagedOutput::commit() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  std::error_code ec;
  if (!fs::exists(final_)) {
    fs::rename(staging_, final_, ec);
    if (ec) out_error(final_, "cannot move the finished outputs into place", ec);
  } else {
    for (const auto& entry : fs::directory_iterator(staging_)) {
      fs::rename(entry.path(), final_ / entry.path().filename(), ec);
      if (ec) out_error(final_, "cannot move " + entry.path().filename().string() + " into place", ec);
    }
    fs::remove(staging_, ec);
  }
  fs::remove_all(previous_, ec);  // replaced by this run's files
  finished_ = true;
}

bool StagedOutput::discard() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return false;
  std::error_code ec;
  fs::remove_all(staging_, ec);
  // A run that fails or is interrupted gives the previous run's files back.
  for (const std::string& file : withdrawn_) fs::rename(previous_ / file, final_ / file, ec);
  fs::remove_all(previous_, ec);
  finished_ = true;
  return true;
}

}  // namespace vnsim::cli
