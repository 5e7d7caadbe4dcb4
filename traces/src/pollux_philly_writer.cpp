// Pollux-derived Philly CSV writer; its output reads back with the
// pollux-philly reader (times rebased, durations exact to 17 digits).
#include <cmath>
#include <cstdio>
#include <fstream>

#include "vnsim/core/error.hpp"
#include "vnsim/traces/trace_writers.hpp"

namespace vnsim {

std::string naive_timestamp(long long seconds) {
  // Civil date from days since 1970-01-01 (H. Hinnant's civil_from_days).
  const long long days = (seconds >= 0 ? seconds : seconds - 86399) / 86400;
  const long long secs = seconds - days * 86400;
  const long long z = days + 719468;
  const long long era = (z >= 0 ? z : z - 146096) / 146097;
  const long long doe = z - era * 146097;
  const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long long mp = (5 * doy + 2) / 153;
  const long long d = doy - (153 * mp + 2) / 5 + 1;
  const long long m = mp < 10 ? mp + 3 : mp - 9;
  const long long y = yoe + era * 400 + (m <= 2);
  char buf[128];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", y, m, d, secs / 3600,
                secs / 60 % 60, secs % 60);
  return buf;
}

std::vector<TraceIssue> write_pollux_philly(const std::string& path, const std::vector<JobSpec>& jobs) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open for writing");
  std::vector<TraceIssue> not_written;
  f << "timestamp,duration,num_gpus,gpu_time,cluster\n";
  char num[64];
  for (const auto& job : jobs) {
    std::string why;
    if (job.trace_duration_s < 0)
      why = "no recorded duration (pollux-philly needs one)";
    else if (job.vc.find(',') != std::string::npos)
      why = "VC '" + job.vc + "' holds a comma";
    if (!why.empty()) {
      not_written.push_back(TraceIssue{path, 0, "job '" + job.id + "' not written: " + why});
      continue;
    }
    f << naive_timestamp(std::llround(job.submit_s)) << ',';
    std::snprintf(num, sizeof num, "%.17g", job.trace_duration_s);
    f << num << ',' << job.gpus << ',';
    std::snprintf(num, sizeof num, "%.17g", job.trace_duration_s * job.gpus);
    f << num << ',' << job.vc << '\n';
  }
  if (!f) throw InputError(path + ": write failed");
  return not_written;
}

}  // namespace vnsim
