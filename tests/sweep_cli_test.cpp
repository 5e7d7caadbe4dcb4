// End-to-end tests of `vnsim sweep` and `vnsim report`: real processes on tiny
// synthetic traces (a few hundred milliseconds per run).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_process_test.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::exit_code;
using vnsim::testing::slurp;

class SweepCli : public vnsim::testing::CliProcessTest {
 protected:
  SweepCli() : CliProcessTest("vnsim-sweep-") {}
  fs::path config(const std::string& body) {
    const fs::path p = dir_ / "exp.json";
    std::ofstream(p) << body;
    return p;
  }
};

// Processes whose command line holds every one of `texts`. Tests run in
// parallel, so a wait names its own sweep folder besides the trace.
std::vector<pid_t> processes_mentioning(std::initializer_list<std::string> texts) {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = slurp(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (std::all_of(texts.begin(), texts.end(),
                    [&](const std::string& t) { return cmdline.find(t) != std::string::npos; }))
      pids.push_back(std::stoi(name));
  }
  return pids;
}

// One replay that takes tens of seconds, for tests that stop a sweep mid-run
// (the actor ring engine; the default fluid rings take a fraction of a second).
const char* const kLongRun =
    R"({"name": "long", "clusters": ["testbed"], "traces": ["synthetic:20", "synthetic:4000"],
        "policies": [{"name": "tiresias", "engine": {"actor_rings": true}}]})";

const char* const kTwoPolicies =
    R"({"name": "t", "clusters": ["testbed"], "traces": ["synthetic:30"], "policies": ["fifo", "fifo-backfill"],
        "seeds": [1, 2]})";

int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST_F(SweepCli, DryRunListsTheExpansionAndRunsNothing) {
  const fs::path cfg = config(kTwoPolicies);
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --dry-run --out " + (dir_ / "s").string()), 0) << err();
  EXPECT_EQ(count_lines(out()), 1 + 4 + 1) << out();  // header, 4 runs, total
  EXPECT_NE(out().find("\tfifo-backfill\tdefault\t2\t"), std::string::npos) << out();
  EXPECT_NE(out().find("# 4 runs"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "s"));
}

TEST_F(SweepCli, SecondInvocationSkipsFinishedRunsAndGivesTheSameTable) {
  const fs::path cfg = config(kTwoPolicies), sweep = dir_ / "s";
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --jobs 2 --out " + sweep.string()), 0) << err();
  EXPECT_NE(out().find("4 ran, 0 skipped"), std::string::npos) << out();
  const std::string table = slurp(sweep / "results.csv");
  EXPECT_EQ(count_lines(table), 5);
  EXPECT_EQ(table.find(",failed,"), std::string::npos) << table;
  EXPECT_EQ(table.find(",not-run,"), std::string::npos) << table;
  for (const auto& entry : fs::directory_iterator(sweep / "runs")) {
    EXPECT_TRUE(fs::exists(entry.path() / "jobs.csv")) << entry.path();
    EXPECT_TRUE(fs::exists(entry.path() / "summary.json")) << entry.path();
  }
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --out " + sweep.string()), 0) << err();
  EXPECT_NE(out().find("0 ran, 4 skipped"), std::string::npos) << out();
  EXPECT_EQ(slurp(sweep / "results.csv"), table);
  // Every run's timeline passes the invariant checker.
  ASSERT_EQ(vnsim("check " + sweep.string()), 0) << err();
  EXPECT_EQ(count_lines(out()), 4 + 1) << out();  // a line per run and a summary
  EXPECT_NE(out().find(": 4 runs checked: 4 ok, 0 break an invariant, 0 unreadable\n"), std::string::npos)
      << out();
  // A run whose summary.json is gone is run again, and only that one.
  const std::string first_dir = table.substr(table.rfind("runs/"), 17);
  fs::remove(sweep / first_dir / "summary.json");
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --out " + sweep.string()), 0) << err();
  EXPECT_NE(out().find("1 ran, 3 skipped"), std::string::npos) << out();
  EXPECT_EQ(slurp(sweep / "results.csv"), table);
}

TEST_F(SweepCli, FailingRunIsRecordedAndTheSweepGoesOn) {
  const fs::path cfg = config(
      R"({"clusters": ["testbed"], "traces": ["/nonexistent/trace.csv", "synthetic:20"], "policies": ["fifo"]})");
  const fs::path sweep = dir_ / "s";
  EXPECT_EQ(vnsim("sweep " + cfg.string() + " --out " + sweep.string()), 3) << err();
  const std::string table = slurp(sweep / "results.csv");
  std::istringstream lines(table);
  std::string header, failed, ok;
  std::getline(lines, header);
  std::getline(lines, failed);
  std::getline(lines, ok);
  EXPECT_NE(failed.find(",failed,2,"), std::string::npos) << failed;  // exit code 2: input error
  EXPECT_NE(failed.find("/nonexistent/trace.csv"), std::string::npos) << failed;
  EXPECT_NE(ok.find(",ok,,,20,"), std::string::npos) << ok;
  EXPECT_NE(err().find("1 run(s) failed"), std::string::npos) << err();
  const std::string run = failed.substr(failed.rfind("runs/"));
  EXPECT_NE(slurp(sweep / run / "error.txt").find("/nonexistent/trace.csv"), std::string::npos);
  EXPECT_EQ(slurp(sweep / run / "exit_code.txt"), "2\n");
}

TEST_F(SweepCli, BadConfigNamesTheFileAndJsonPath) {
  const fs::path cfg =
      config(R"({"clusters": ["testbed"], "traces": ["synthetic:5"], "policies": ["fifo", "sjf-typo"]})");
  EXPECT_EQ(vnsim("sweep " + cfg.string() + " --out " + (dir_ / "s").string()), 2);
  EXPECT_NE(err().find(cfg.string() + ": policies[1]: unknown policy 'sjf-typo'"), std::string::npos)
      << err();
  EXPECT_FALSE(fs::exists(dir_ / "s"));
}

// command.txt names the shared data as ${VNSIM_SHARED} and the run folder
// relative to where the sweep ran, and is a shell line that runs again.
TEST_F(SweepCli, CommandTxtUsesTheSharedVariableAndRunsAgain) {
  fs::create_directories(dir_ / "data" / "traces");
  std::ofstream(dir_ / "data" / "traces" / "t.jsonl")
      << R"({"id":"a","submit_s":0,"gpus":1,"trace_duration_s":60})"
      << "\n";
  const fs::path cfg = config(
      R"({"clusters": ["testbed"], "traces": ["${VNSIM_SHARED}/traces/t.jsonl"], "policies": ["fifo"]})");
  const std::string in_dir = "cd " + dir_.string() + " && VNSIM_SHARED=" + (dir_ / "data").string() + " ";
  ASSERT_EQ(
      exit_code(in_dir + VNSIM_CLI_PATH + " sweep " + cfg.string() + " --quiet --out s > out.txt 2> err.txt"),
      0)
      << err();
  std::vector<fs::path> commands;
  for (const auto& run : fs::directory_iterator(dir_ / "s" / "runs"))
    commands.push_back(run.path() / "command.txt");
  ASSERT_EQ(commands.size(), 1u);
  const std::string command = slurp(commands[0]);
  EXPECT_NE(command.find(" --trace \"${VNSIM_SHARED}/traces/t.jsonl\" "), std::string::npos) << command;
  EXPECT_NE(command.find(" --out s/runs/"), std::string::npos) << command;
  EXPECT_EQ(command.find((dir_ / "data").string()), std::string::npos) << command;
  // run.json and summary.json name the trace the same way (the replay is
  // handed the root the sweep expanded the variable with).
  for (const char* file : {"run.json", "summary.json"}) {
    const std::string text = slurp(commands[0].parent_path() / file);
    EXPECT_NE(text.find(R"x("trace": "${VNSIM_SHARED}/traces/t.jsonl (jsonl)")x"), std::string::npos) << text;
  }
  const std::string jobs = slurp(commands[0].parent_path() / "jobs.csv");
  fs::remove(commands[0].parent_path() / "jobs.csv");
  EXPECT_EQ(exit_code(in_dir + "bash " + commands[0].string() + " > out.txt 2> err.txt"), 0) << err();
  EXPECT_EQ(slurp(commands[0].parent_path() / "jobs.csv"), jobs);
}

TEST_F(SweepCli, MissingSharedFileAndBadRunTimeoutAreInputErrors) {
  const fs::path cfg = config(
      R"({"clusters": ["testbed"], "traces": ["${VNSIM_SHARED}/traces/no_such_trace.csv"], "policies": ["fifo"]})");
  EXPECT_EQ(vnsim("sweep " + cfg.string() + " --out " + (dir_ / "s").string()), 2);
  EXPECT_NE(err().find(cfg.string() + ": traces[0]: '${VNSIM_SHARED}/traces/no_such_trace.csv' is '"),
            std::string::npos)
      << err();
  EXPECT_NE(err().find("set VNSIM_SHARED"), std::string::npos) << err();
  EXPECT_FALSE(fs::exists(dir_ / "s"));
  EXPECT_EQ(
      vnsim("sweep " + config(kTwoPolicies).string() + " --run-timeout -5 --out " + (dir_ / "s").string()),
      2);
  EXPECT_NE(err().find("--run-timeout"), std::string::npos) << err();
}

// A config's run_timeout_s applies without the flag, and the flag wins over
// it. 100,000 synthetic jobs take seconds even on a fast machine.
TEST_F(SweepCli, ConfigRunTimeoutAppliesAndTheFlagOverridesIt) {
  const fs::path cfg = config(
      R"({"clusters": ["testbed"], "traces": ["synthetic:100000"], "policies": ["fifo"], "run_timeout_s": 1})");
  EXPECT_EQ(vnsim("sweep " + cfg.string() + " --quiet --out " + (dir_ / "s").string()), 3) << err();
  std::ifstream table(dir_ / "s" / "results.csv");
  std::stringstream text;
  text << table.rdbuf();
  EXPECT_NE(text.str().find("timed out: killed after 1 s (--run-timeout)"), std::string::npos) << text.str();
  const fs::path generous = config(
      R"({"clusters": ["testbed"], "traces": ["synthetic:100000"], "policies": ["fifo"], "run_timeout_s": 100000})");
  EXPECT_EQ(vnsim("sweep " + generous.string() + " --quiet --run-timeout 1 --out " + (dir_ / "t").string()),
            3)
      << err();
}

// `vnsim check SWEEP_DIR` checks every run with a timeline on its own: a
// broken or unreadable run is named, the others are still checked, and the
// summary line counts each kind; the exit code is the worst run's.
TEST_F(SweepCli, CheckOnASweepFolderNamesEachFailingRunAndSummarises) {
  const fs::path cfg = config(kTwoPolicies), sweep = dir_ / "s";
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --jobs 2 --out " + sweep.string()), 0) << err();
  std::vector<fs::path> runs;
  for (const auto& entry : fs::directory_iterator(sweep / "runs")) runs.push_back(entry.path());
  std::sort(runs.begin(), runs.end());
  ASSERT_EQ(runs.size(), 4u);
  // runs[0]: its first take repeated, so a GPU is over-committed.
  std::string timeline = slurp(runs[0] / "allocations.csv");
  const std::size_t first_row = timeline.find('\n') + 1;
  timeline.insert(first_row, timeline.substr(first_row, timeline.find('\n', first_row) + 1 - first_row));
  std::ofstream(runs[0] / "allocations.csv", std::ios::binary) << timeline;
  // runs[1]: jobs.csv cut inside its second row.
  const std::string jobs = slurp(runs[1] / "jobs.csv");
  std::ofstream(runs[1] / "jobs.csv", std::ios::binary)
      << jobs.substr(0, jobs.find('\n', jobs.find('\n') + 1) - 5) << "\n";
  // runs[2]: finished before allocations.csv existed; a folder of an unfinished run.
  fs::remove(runs[2] / "allocations.csv");
  fs::create_directories(sweep / "runs" / "zz-unfinished");
  EXPECT_EQ(vnsim("check " + sweep.string()), 2);
  EXPECT_NE(out().find(runs[3].string() + ": ok ("), std::string::npos) << out();
  EXPECT_NE(
      err().find((runs[0] / "allocations.csv").string() + ":3: (t=0.000000, job 0): takes GPU 0, which it "
                                                          "already holds"),
      std::string::npos)
      << err();
  EXPECT_NE(err().find(runs[1].string() + ": error: " + (runs[1] / "jobs.csv").string() + ":2: expected"),
            std::string::npos)
      << err();
  EXPECT_NE(out().find(sweep.string() +
                       ": 3 runs checked: 1 ok, 1 break an invariant, 1 unreadable; 1 finished without "
                       "allocations.csv, not checked; 1 unfinished (no summary.json), not checked\n"),
            std::string::npos)
      << out();
  // Without the unreadable run the worst is a broken invariant.
  std::ofstream(runs[1] / "jobs.csv", std::ios::binary) << jobs;
  EXPECT_EQ(vnsim("check " + sweep.string()), 1);
  EXPECT_NE(out().find(": 3 runs checked: 2 ok, 1 break an invariant, 0 unreadable"), std::string::npos)
      << out();
  timeline.erase(first_row, timeline.find('\n', first_row) + 1 - first_row);  // the repeated take again out
  std::ofstream(runs[0] / "allocations.csv", std::ios::binary) << timeline;
  EXPECT_EQ(vnsim("check " + sweep.string()), 0) << err();
}

TEST_F(SweepCli, MpiGatheredTableEqualsTheSingleProcessTable) {
  if (exit_code("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun not installed";
  const fs::path cfg = config(
      R"({"clusters": ["testbed"], "traces": ["synthetic:20", "/nonexistent/trace.csv"],
          "policies": ["fifo", "fifo-backfill"], "seeds": [1, 2]})");
  EXPECT_EQ(vnsim("sweep " + cfg.string() + " --jobs 2 --out " + (dir_ / "local").string()), 3) << err();
  // OpenMPI leaks by design (MPI_Finalize leaves allocations in plugins it has
  // already unloaded, so they cannot even be suppressed by name); leak checks
  // stay on for every non-MPI run in this suite.
  const std::string mpi =
      "ASAN_OPTIONS=detect_leaks=0 mpirun -x ASAN_OPTIONS --allow-run-as-root --oversubscribe -np 3 ";
  EXPECT_EQ(exit_code(mpi + VNSIM_CLI_PATH + " sweep " + cfg.string() + " --mpi --jobs 1 --out " +
                      (dir_ / "mpi").string() + " > " + (dir_ / "out.txt").string() + " 2> " +
                      (dir_ / "err.txt").string()),
            3)
      << err();
  EXPECT_NE(out().find("8 runs on 3 rank(s): 8 ran"), std::string::npos) << out() << err();
  const std::string local = slurp(dir_ / "local" / "results.csv");
  EXPECT_EQ(count_lines(local), 9);
  EXPECT_EQ(slurp(dir_ / "mpi" / "results.csv"), local);
}

// The value of `name` in the environment of process `pid` ("" when absent).
std::string environment_value(pid_t pid, const std::string& name) {
  const std::string env = slurp(fs::path("/proc") / std::to_string(pid) / "environ");
  const std::string key = name + "=";
  for (std::size_t at = 0; at < env.size(); at = env.find('\0', at) + 1) {
    if (env.compare(at, key.size(), key) == 0)
      return env.substr(at + key.size(), env.find('\0', at) - at - key.size());
    if (env.find('\0', at) == std::string::npos) break;
  }
  return "";
}

// A `--mpi` sweep whose rank dies (SIGKILL, as the OOM killer or a node
// failure would): mpirun ends the job with an error exit, no rank or replay
// outlives it, and a rerun skips the runs that finished and runs the others.
TEST_F(SweepCli, MpiRankKilledEndsTheJobWithoutOrphansAndARerunResumes) {
  if (exit_code("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun not installed";
  // Six runs, round-robin over three ranks: each rank runs a short replay,
  // then a long one (the actor ring engine: tens of seconds).
  const fs::path cfg = config(
      R"({"name": "rank", "clusters": ["testbed"], "traces": ["synthetic:20", "synthetic:4000"],
          "policies": [{"name": "tiresias", "engine": {"actor_rings": true}}], "seeds": [1, 2, 3]})");
  const fs::path sweep = dir_ / "s";
  const std::string command =
      "ASAN_OPTIONS=detect_leaks=0 exec mpirun -x ASAN_OPTIONS --allow-run-as-root "
      "--oversubscribe -np 3 " +
      std::string(VNSIM_CLI_PATH) + " sweep " + cfg.string() + " --mpi --jobs 1 --quiet --out " +
      sweep.string() + " > " + p("mpi_out.txt") + " 2> " + p("mpi_err.txt");
  const pid_t launcher = ::fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {
    ::setpgid(0, 0);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // All three long replays run: the short runs are done.
  const bool all_long = wait_until([&] {
    return processes_mentioning({"replay", "synthetic:4000", sweep.string()}).size() == 3;
  });
  if (!all_long) {
    ::kill(-launcher, SIGKILL);
    wait_exit(launcher);
    FAIL() << "the three long replays never ran together: " << slurp(dir_ / "mpi_err.txt");
  }
  pid_t victim = -1;
  for (pid_t pid : processes_mentioning({"sweep", "--mpi", sweep.string()}))
    if (environment_value(pid, "OMPI_COMM_WORLD_RANK") == "1") victim = pid;
  ASSERT_GT(victim, 0) << "no process of rank 1";
  ASSERT_EQ(::kill(victim, SIGKILL), 0);
  const int code = wait_exit(launcher);
  EXPECT_NE(code, 0) << slurp(dir_ / "mpi_err.txt");
  EXPECT_NE(slurp(dir_ / "mpi_err.txt").find("signal 9"), std::string::npos) << slurp(dir_ / "mpi_err.txt");
  EXPECT_FALSE(fs::exists(sweep / "results.csv"));  // rank 0 cannot gather a dead rank's rows
  // No rank and no replay outlives the job: the replays get SIGTERM when
  // their rank dies and end at once (well before a long replay would end on
  // its own, which takes minutes here).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (!processes_mentioning({sweep.string()}).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::vector<pid_t> left = processes_mentioning({sweep.string()});
  EXPECT_TRUE(left.empty()) << left.size() << " processes left 15 s after the job ended";
  for (pid_t pid : left) ::kill(pid, SIGKILL);  // so a failure leaves nothing behind
  // A rerun skips the three finished runs and runs the three others (cut
  // short here by --run-timeout, which only bounds how long a run may take).
  EXPECT_EQ(vnsim("sweep " + cfg.string() + " --jobs 2 --run-timeout 1 --out " + sweep.string()), 3) << err();
  EXPECT_NE(out().find("6 runs on 1 rank(s): 3 ran, 3 skipped (done before), 3 failed"), std::string::npos)
      << out() << err();
  const std::string table = slurp(sweep / "results.csv");
  EXPECT_EQ(count_lines(table), 7) << table;
  for (const char* seed : {",1,ok,", ",2,ok,", ",3,ok,"})
    EXPECT_NE(table.find("synthetic:20,,tiresias [actor-rings],," + std::string(seed + 1)), std::string::npos)
        << table;
}

TEST_F(SweepCli, ReportWritesExecutedNotebookHtmlAndPlots) {
  if (exit_code(
          "/usr/bin/python3 -c 'import nbformat, nbconvert, pandas, matplotlib, ipykernel' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3 with nbformat, nbconvert, pandas, matplotlib and ipykernel not installed";
  // Two seeds and a load axis (arrival-scale), so every plot of the report is drawn.
  const fs::path cfg = config(
                     R"({"name": "t", "clusters": ["testbed"],
                         "traces": [{"trace": "synthetic:30", "options": {"arrival-scale": 1}},
                                    {"trace": "synthetic:30", "options": {"arrival-scale": 4}}],
                         "policies": ["fifo", "fifo-backfill"], "seeds": [1, 2],
                         "notes": ["Why **this** matters.", "", "A second paragraph."]})"),
                 sweep = dir_ / "s";
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --jobs 2 --out " + sweep.string()), 0) << err();
  ASSERT_EQ(vnsim("report " + sweep.string()), 0) << out() << err();
  const fs::path report = sweep / "report";
  const std::string notebook = slurp(report / "report.ipynb");
  ASSERT_FALSE(notebook.empty());
  EXPECT_EQ(notebook.find("\"output_type\": \"error\""), std::string::npos) << "a notebook cell raised";
  EXPECT_NE(notebook.find("image/png"), std::string::npos);
  EXPECT_GT(fs::file_size(report / "report.html"), 1000u);
  for (const char* png : {"jct_cdf.png", "jct_by_seed.png", "jct_by_trace.png", "jct_vs_load.png",
                          "utilisation_queue.png", "gantt_fifo_seed1.png", "ftf_rho_cdf.png",
                          "cost_energy.png", "wait_cdf.png", "wait_cdf_by_vc.png", "allocation_timeline.png"})
    EXPECT_TRUE(fs::exists(report / png) && fs::file_size(report / png) > 1000u) << png;
  // The config's notes open the report (nbformat stores a cell's source as a list of lines).
  EXPECT_NE(notebook.find("## About this experiment\\n"), std::string::npos);
  EXPECT_NE(notebook.find("\"Why **this** matters.\\n\",\n"), std::string::npos);
  EXPECT_NE(notebook.find("\"A second paragraph.\""), std::string::npos);
  // The "why no plot" lines as printed outputs (in the cell sources they follow `print(\"`).
  for (const char* skipped :
       {" \"No load axis", " \"No finish-time-fairness plot", " \"No allocation timeline",
        " \"No cost or energy plot", " \"No per-VC wait plot"})
    EXPECT_EQ(notebook.find(skipped), std::string::npos) << skipped;
  EXPECT_EQ(vnsim("report " + (dir_ / "nowhere").string()), 2);
  EXPECT_NE(err().find("no results.csv"), std::string::npos) << err();
  // A sweep with no ok run still gets its table, and a notebook that says why nothing is plotted.
  const fs::path
      failed_cfg =
          config(R"({"clusters": ["testbed"], "traces": ["/nonexistent/trace.csv"], "policies": ["fifo"]})"),
      failed = dir_ / "failed";
  ASSERT_EQ(vnsim("sweep " + failed_cfg.string() + " --out " + failed.string()), 3) << err();
  ASSERT_EQ(vnsim("report " + failed.string()), 0) << out() << err();
  const std::string failed_notebook = slurp(failed / "report" / "report.ipynb");
  EXPECT_NE(failed_notebook.find("No run has status `ok`"), std::string::npos);
  EXPECT_EQ(failed_notebook.find("\"output_type\": \"error\""), std::string::npos);
}

TEST_F(SweepCli, ASecondSweepOnTheFolderIsRefusedAndKill9LeavesNoOrphans) {
  const fs::path cfg = config(kLongRun), sweep = dir_ / "s";
  const pid_t first = start({"sweep", cfg.string(), "--jobs", "2", "--quiet", "--out", sweep.string()});
  ASSERT_TRUE(wait_until([&] { return !processes_mentioning({"synthetic:4000", sweep.string()}).empty(); }));
  EXPECT_EQ(vnsim("sweep " + cfg.string() + " --out " + sweep.string()), 2);
  EXPECT_NE(err().find("another sweep (pid " + std::to_string(first) + ") is running in this folder"),
            std::string::npos)
      << err();
  ::kill(first, SIGKILL);
  EXPECT_EQ(wait_exit(first), 128 + SIGKILL);
  // Its replays get SIGTERM from the kernel and end; nothing runs in the folder.
  EXPECT_TRUE(wait_until([&] { return processes_mentioning({sweep.string()}).empty(); }))
      << processes_mentioning({sweep.string()}).size() << " processes left";
  // The dead sweep's lock is gone with it: a new sweep may use the folder.
  const fs::path quick =
      config(R"({"name": "q", "clusters": ["testbed"], "traces": ["synthetic:20"], "policies": ["fifo"]})");
  EXPECT_EQ(vnsim("sweep " + quick.string() + " --quiet --out " + sweep.string()), 0) << err();
}

// Ctrl-C on a terminal sends SIGINT to the whole job (the sweep and its
// replays); `kill -INT` of the sweep alone reaches only the sweep.
class SweepInterrupt : public SweepCli, public ::testing::WithParamInterface<bool> {};

TEST_P(SweepInterrupt, WritesResultsForFinishedRunsAndMarksTheRestInterrupted) {
  const bool whole_group = GetParam();
  const fs::path cfg = config(kLongRun), sweep = dir_ / "s";
  const pid_t pid = start({"sweep", cfg.string(), "--jobs", "1", "--quiet", "--out", sweep.string()});
  // The short run is done once the long one has started.
  ASSERT_TRUE(wait_until([&] {
    return processes_mentioning({"synthetic:4000", sweep.string()}).size() >= 1;
  }));
  ::kill(whole_group ? -pid : pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130);
  const std::string table = slurp(sweep / "results.csv");
  EXPECT_EQ(count_lines(table), 3) << table;
  EXPECT_NE(table.find("synthetic:20,,tiresias [actor-rings],,1,ok,"), std::string::npos) << table;
  EXPECT_NE(table.find("synthetic:4000,,tiresias [actor-rings],,1,interrupted,"), std::string::npos) << table;
  EXPECT_NE(slurp(dir_ / "bg_err.txt").find("interrupted by SIGINT"), std::string::npos);
  EXPECT_TRUE(processes_mentioning({sweep.string()}).empty());
}

INSTANTIATE_TEST_SUITE_P(SweepCli, SweepInterrupt, ::testing::Values(false, true),
                         [](const auto& param) { return param.param ? "CtrlCOnTheJob" : "KillOfTheSweep"; });

TEST_F(SweepCli, AnEditedTraceIsRunAgainAndSaysWhy) {
  const fs::path trace = dir_ / "t.jsonl";
  std::ofstream(trace) << R"({"id":"a","submit_s":0,"gpus":1,"trace_duration_s":60})"
                       << "\n";
  const fs::path cfg = config(R"({"name": "e", "clusters": ["testbed"], "traces": [")" + trace.string() +
                              R"("], "policies": ["fifo"]})");
  const fs::path sweep = dir_ / "s";
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --out " + sweep.string()), 0) << err();
  EXPECT_NE(out().find("1 ran, 0 skipped"), std::string::npos) << out();
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --out " + sweep.string()), 0) << err();
  EXPECT_NE(out().find("0 ran, 1 skipped"), std::string::npos) << out();
  std::ofstream(trace, std::ios::app) << R"({"id":"b","submit_s":5,"gpus":1,"trace_duration_s":60})"
                                      << "\n";
  ASSERT_EQ(vnsim("sweep " + cfg.string() + " --out " + sweep.string()), 0) << err();
  EXPECT_NE(out().find("1 ran, 0 skipped"), std::string::npos) << out();
  EXPECT_NE(err().find("re-running"), std::string::npos) << err();
  EXPECT_NE(err().find("file " + trace.string() + " changed"), std::string::npos) << err();
  EXPECT_NE(slurp(sweep / "results.csv").find(",ok,,,2,2,0,"), std::string::npos)
      << slurp(sweep / "results.csv");
}

}  // namespace
