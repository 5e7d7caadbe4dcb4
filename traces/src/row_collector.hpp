#pragma once
// Collects the jobs and bad rows of one trace read, so that every format
// applies the BadRowPolicy and the duplicate-id rule in the same way.
#include <map>
#include <string>
#include <utility>

#include "field_checks.hpp"
#include "row_parsers.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim::traces_detail {

class RowCollector {
 public:
  RowCollector(BadRowPolicy policy, TraceReadResult& result) : policy_(policy), result_(result) {}

  void bad(const std::string& file, long line, const std::string& reason, bool filtered = false) {
    if (policy_ == BadRowPolicy::Fail && !filtered) throw input_error_at(file, line, reason);
    result_.skipped.push_back(
        TraceIssue{file, line, reason, filtered ? IssueKind::Filtered : IssueKind::Corrupt});
  }

  void add(const std::string& file, long line, JobSpec job) {
    try {
      check_plausible(job);
    } catch (const RowError& e) {
      bad(file, line, e.reason);
      return;
    }
    const auto [it, inserted] = first_line_of_id_.emplace(job.id, line);
    if (!inserted) {
      bad(file, line, "duplicate job id '" + job.id + "' (first on line " + std::to_string(it->second) + ")");
      return;
    }
    result_.jobs.push_back(std::move(job));
  }

  // Runs parse_row(); a RowError it throws becomes a bad row at file:line.
  template <class ParseRow>
  void parse(const std::string& file, long line, ParseRow&& parse_row) {
    try {
      add(file, line, parse_row());
    } catch (const RowError& e) {
      bad(file, line, e.reason, e.filtered);
    }
  }

 private:
  BadRowPolicy policy_;
  TraceReadResult& result_;
  std::map<std::string, long> first_line_of_id_;
};

}  // namespace vnsim::traces_detail
