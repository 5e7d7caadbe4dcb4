// results.csv rows from run directories: metrics copied from summary.json,
// failures with their exit code and last stderr line, missing runs marked.
#include "vnsim/sweep/results_table.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "vnsim/sweep/experiment_config.hpp"
#include "vnsim/sweep/run_executor.hpp"

namespace {

namespace fs = std::filesystem;
using namespace vnsim::sweep;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(ResultsTable, RowsForOkFailedAndNotRunRuns) {
  const fs::path out = fs::temp_directory_path() / ("vnsim-results-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const auto runs = expand_runs(parse_experiment_config(
      R"({"clusters": ["testbed"], "traces": [{"trace": "synthetic:5", "label": "a, \"b\""}],
          "policies": ["fifo"], "seeds": [1, 2, 3]})",
      "exp.json", ""));
  write(fs::path(run_dir(out.string(), runs[0])) / "summary.json",
        R"({"counts": {"submitted": 5, "completed": 4, "rejected": 1},
            "jct_s": {"mean": 10.5, "median": 9.0, "p95": 20.25, "p99": 21.0, "max": 22.0},
            "wait_s": {"mean": 1.5, "median": 0.0, "p95": 3.0, "p99": 3.5},
            "makespan_s": 100.0, "gpu_seconds": 50.0, "gpu_utilisation": null})");
  write(fs::path(run_dir(out.string(), runs[1])) / "exit_code.txt", "2\n");
  write(fs::path(run_dir(out.string(), runs[1])) / "error.txt",
        "skipped x\nvnsim: error: /no.csv: cannot open\n");

  EXPECT_EQ(
      results_header(),
      "run_index,run_id,cluster,trace,trace_options,policy,macro_iterations,seed,status,exit_code,error,"
      "submitted,completed,rejected,jct_mean_s,jct_median_s,jct_p95_s,jct_p99_s,wait_mean_s,makespan_s,"
      "gpu_utilisation,run_dir");
  EXPECT_EQ(results_row(runs[0], out.string()),
            "0," + runs[0].id +
                ",testbed,\"a, \"\"b\"\"\",,fifo,,1,ok,,,5,4,1,10.5,9.0,20.25,"
                "21.0,1.5,100.0,,runs/" +
                runs[0].id);
  EXPECT_EQ(results_row(runs[1], out.string()),
            "1," + runs[1].id +
                ",testbed,\"a, \"\"b\"\"\",,fifo,,2,failed,2,vnsim: error: "
                "/no.csv: cannot open,,,,,,,,,,,runs/" +
                runs[1].id);
  EXPECT_NE(results_row(runs[2], out.string()).find(",3,not-run,"), std::string::npos);

  write_results_csv((out / "results.csv").string(), {"r0", "r1"});
  std::ifstream f(out / "results.csv");
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, results_header() + "\nr0\nr1\n");
  fs::remove_all(out);
}

}  // namespace
