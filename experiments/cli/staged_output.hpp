#pragma once
// Atomic output folders (docs/OUTPUTS.md, "Atomic outputs"): a command writes
// its files into a staging folder beside --out and moves them into place only
// when all of them are written, so a failed, interrupted or killed run never
// leaves a previous run's files looking like its own.
#include <filesystem>
#include <mutex>
#include <string>

namespace vnsim::cli {

class StagedOutput {
 public:
  // Checks `final_dir` (a folder or a path that can become one: an existing
  // file, or a parent that cannot be written, is a user error) and creates
  // the staging folder `<parent>/.<name>.partial-<pid>`. Staging folders of
  // `final_dir` left by killed runs whose process is gone are removed.
  explicit StagedOutput(const std::filesystem::path& final_dir);
  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  const std::filesystem::path& dir() const { return staging_; }
  const std::filesystem::path& final_dir() const { return final_; }
  // Moves every staged file into final_dir(): the whole folder in one
  // rename when final_dir() does not exist yet, else file by file (each
  // rename atomic), replacing files of the same name and keeping others.
  void commit();
  // Removes the staging folder (also done by the destructor when commit()
  // was not reached); false when commit() had already finished. Safe to call
  // from the interrupt watcher thread.
  bool discard();

 private:
  std::filesystem::path final_;
  std::filesystem::path staging_;
  std::mutex mutex_;  // commit() and discard() from the watcher never interleave
  bool finished_ = false;
};

}  // namespace vnsim::cli
