#pragma once
// One output file written atomically (docs/OUTPUTS.md, "Atomic outputs";
// used by `vnsim export`, `vnsim trace convert` and vnexec):
// the command writes `path()`, a temporary name beside the final one, and
// commit() renames it into place, so a failed or killed command never leaves
// a complete-looking file, and a previous file of that name stays whole
// until the new one is finished.
#include <filesystem>
#include <string>

namespace vnsim {

// Removes `<parent>/.<name>.<kind>-<pid>` (a file or a folder) wherever
// process <pid> is gone: a command killed with SIGKILL cannot clean up the
// staging it left beside its output.
void remove_orphaned_staging(const std::filesystem::path& parent, const std::string& name,
                             const std::string& kind);

class StagedFile {
 public:
  // `final_path` must name a file in a folder that exists or can be made
  // (a folder there, or a parent that cannot be written, is a user error).
  // Temporary files of the same name left by killed runs whose process is
  // gone are removed.
  explicit StagedFile(const std::filesystem::path& final_path);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  // Where to write: `<parent>/.<name>.partial-<pid>`.
  const std::filesystem::path& path() const { return staging_; }
  const std::filesystem::path& final_path() const { return final_; }
  // Renames path() onto final_path() (atomic, replacing a file there).
  void commit();

 private:
  std::filesystem::path final_;
  std::filesystem::path staging_;
  bool committed_ = false;
};

}  // namespace vnsim
