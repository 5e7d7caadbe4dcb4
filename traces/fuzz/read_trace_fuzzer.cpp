// libFuzzer target: one build per trace format (VNSIM_FUZZ_FORMAT). The input
// is written to a file and read with read_trace, since readers take a path.
// InputError is the expected answer to bad input; any other exception, a
// crash or a sanitizer report is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

#ifndef VNSIM_FUZZ_FORMAT
#error "VNSIM_FUZZ_FORMAT must name a trace format"
#endif

namespace {

namespace fs = std::filesystem;

const fs::path& work_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("vnsim-fuzz-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

void write_file(const fs::path& path, const char* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
}

// The format's registry entry says whether its input is one file or a
// folder of tables (pai-2020: job, task and instance table). A folder input
// holds the tables separated by form feeds, in the entry's order.
const std::vector<std::string>& folder_tables() {
  static const std::vector<std::string> tables = [] {
    for (const auto& format : vnsim::trace_formats())
      if (format.name == VNSIM_FUZZ_FORMAT) return format.folder_tables;
    __builtin_trap();  // a corpus folder that names no registered format
  }();
  return tables;
}

std::string write_input(const std::uint8_t* bytes, std::size_t size) {
  const auto* data = reinterpret_cast<const char*>(bytes);
  const auto& tables = folder_tables();
  if (tables.empty()) {
    const fs::path file = work_dir() / "trace";
    write_file(file, data, size);
    return file.string();
  }
  const std::string text(data, size);
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (parts.size() + 1 < tables.size()) {
    const std::size_t feed = text.find('\f', start);
    if (feed == std::string::npos) break;
    parts.push_back(text.substr(start, feed - start));
    start = feed + 1;
  }
  parts.push_back(text.substr(start));
  // Tables the input does not reach are absent: the reader must refuse a
  // missing required table (pai-2020's task table) and do without an
  // optional one (its instance table).
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (i < parts.size())
      write_file(work_dir() / tables[i], parts[i].data(), parts[i].size());
    else
      fs::remove(work_dir() / tables[i]);
  }
  return work_dir().string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = write_input(data, size);
  for (const auto policy : {vnsim::BadRowPolicy::Skip, vnsim::BadRowPolicy::Fail}) {
    try {
      const auto result = vnsim::read_trace(path, VNSIM_FUZZ_FORMAT, policy);
      // Invariants every reader promises: sorted, rebased, whole GPUs.
      double previous = 0;
      for (const auto& job : result.jobs) {
        if (job.submit_s < previous || job.gpus < 1 || job.id.empty()) __builtin_trap();
        previous = job.submit_s;
      }
      if (!result.jobs.empty() && result.jobs.front().submit_s != 0) __builtin_trap();
    } catch (const vnsim::InputError&) {
      // Bad input must end here, with a message.
    }
  }
  return 0;
}
