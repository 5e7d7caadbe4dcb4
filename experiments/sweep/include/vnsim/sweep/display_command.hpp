#pragma once
// The replay command a sweep writes to each run's command.txt. It is meant to
// be read, copied and committed (notebooks_out/), so it must not name the
// folders of the machine that ran it: the shared data folder is written as
// "${VNSIM_SHARED}/..." and paths inside the working directory relative to it.
#include <filesystem>
#include <string>
#include <vector>

namespace vnsim::sweep {

// `argv` (program first) as one shell line: each argument quoted as needed;
// an argument that is `shared_root` or lies under it becomes
// "${VNSIM_SHARED}/rest" (in double quotes, so a shell expands it); an
// absolute path under `cwd` becomes relative to `cwd`. Other arguments are
// kept as they are. `shared_root` and `cwd` are absolute.
std::string display_command(const std::vector<std::string>& argv, const std::string& shared_root,
                            const std::filesystem::path& cwd);

// How run.json and summary.json name an input file, for the same reason:
// "${VNSIM_SHARED}/rest" (unquoted) when `path`, made absolute against the
// working directory, is `shared_root` or lies under it; else `path` as
// given. An empty `shared_root` (VNSIM_SHARED unset) keeps `path`.
std::string shared_path_label(const std::string& path, const std::string& shared_root);

}  // namespace vnsim::sweep
