#pragma once
// Atomic output folders (docs/OUTPUTS.md, "Atomic outputs"): a command writes
// its files into a staging folder beside --out and moves them into place only
// when all of them are written. Once the work starts, the previous run's
// files are set aside (withdraw_previous), so a failed, interrupted or killed
// run never leaves a previous run's files looking like its own: a failed or
// interrupted run puts them back, a killed one leaves them beside --out.
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

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
  // Moves the files of final_dir() named `names` (what this command writes)
  // into `<parent>/.<name>.previous-<pid>`, so that while the run works, and
  // after it is killed, final_dir() holds no earlier outputs. commit() drops
  // them; discard() puts them back. Call it once the inputs were accepted.
  void withdraw_previous(const std::vector<std::string>& names);
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
  std::filesystem::path previous_;
  std::vector<std::string> withdrawn_;
  std::mutex mutex_;  // commit() and discard() from the watcher never interleave
  bool finished_ = false;
};

}  // namespace vnsim::cli
