// The command-line contract scripts and batch systems rely on (issue 18,
// docs/OUTPUTS.md "Exit codes"): per-command help, exit 2 for every user
// error, atomic output folders and clean ends on SIGINT/SIGTERM/SIGKILL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_process_test.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::slurp;

class CliContract : public vnsim::testing::CliProcessTest {
 protected:
  CliContract() : CliProcessTest("vnsim-contract-") {}
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  // Waits until `path` exists: the run has reached that point.
  static bool wait_for(const fs::path& path) {
    return wait_until([&] { return fs::exists(path); });
  }
};

// Long enough (tens of seconds) to be interrupted while it simulates: the
// actor ring engine simulates contended rings iteration by iteration, where
// the default fluid rings replay this trace in a fraction of a second.
const std::vector<std::string> kLongReplay = {"replay",   "--cluster",      "testbed",
                                              "--trace",  "synthetic:4000", "--policy",
                                              "tiresias", "--actor-rings",  "--quiet"};

TEST_F(CliContract, EveryCommandHasHelpThatExitsZero) {
  for (const std::string cmd : {"replay", "trace", "sweep", "report", "policies", "validate",
                                "bench-collective", "check", "export", "version"}) {
    ASSERT_EQ(vnsim(cmd + " --help"), 0) << cmd << ": " << err();
    EXPECT_EQ(out().rfind("usage: vnsim " + cmd, 0), 0u) << out();
    EXPECT_EQ(err(), "") << cmd;
    ASSERT_EQ(vnsim(cmd + " -h"), 0) << cmd << ": " << err();
  }
  // Anywhere after the command, also after other options.
  ASSERT_EQ(vnsim("replay --cluster testbed --help"), 0) << err();
  EXPECT_NE(out().find("most-free"), std::string::npos) << out();
}

TEST_F(CliContract, RepeatedSingleValuedFlagIsAUserError) {
  EXPECT_EQ(vnsim("replay --cluster testbed --trace synthetic:5 --out " + p("a") + " --out " + p("b")), 2);
  EXPECT_NE(err().find("option --out given twice"), std::string::npos) << err();
  EXPECT_EQ(
      vnsim("replay --cluster testbed --trace synthetic:5 --policy fifo --policy tiresias --out " + p("a")),
      2);
  EXPECT_NE(err().find("option --policy given twice"), std::string::npos) << err();
  EXPECT_FALSE(fs::exists(dir_ / "a"));
}

TEST_F(CliContract, BadOutIsAUserErrorNotAnInternalOne) {
  write("file", "x");
  EXPECT_EQ(vnsim("replay --cluster testbed --trace synthetic:5 --out " + p("file")), 2);
  EXPECT_NE(err().find("exists and is not a folder"), std::string::npos) << err();
  EXPECT_EQ(vnsim("replay --cluster testbed --trace synthetic:5 --out /proc/vnsim-x"), 2);
  EXPECT_NE(err().find("--out /proc/vnsim-x: cannot create"), std::string::npos) << err();
  EXPECT_EQ(err().find("internal error"), std::string::npos) << err();
  EXPECT_EQ(vnsim("replay --cluster testbed --trace synthetic:5 --out " + p("file") + "/sub"), 2);
  EXPECT_EQ(err().find("internal error"), std::string::npos) << err();
}

TEST_F(CliContract, ClusterDirectoryIsNamedAsSuch) {
  EXPECT_EQ(vnsim("replay --cluster " + dir_.string() + " --trace synthetic:5 --out " + p("o")), 2);
  EXPECT_NE(err().find("is a directory"), std::string::npos) << err();
}

TEST_F(CliContract, AllBadOrEmptyTraceExits2UnlessAllowed) {
  write("jobs.csv", "id,submit_s,gpus\na,0,1\nb,5,2\n");
  EXPECT_EQ(vnsim("replay --cluster testbed --trace " + p("jobs.csv") + " --format jsonl --out " + p("o")),
            2);
  EXPECT_NE(err().find("no job to replay (3 rows skipped)"), std::string::npos) << err();
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  ASSERT_EQ(vnsim("replay --cluster testbed --trace " + p("jobs.csv") +
                  " --format jsonl --allow-empty --out " + p("o")),
            0)
      << err();
  EXPECT_TRUE(fs::exists(dir_ / "o" / "summary.json"));
}

TEST_F(CliContract, BinaryGarbageIsNotEchoedRaw) {
  write("garbage.bin", std::string("\x7f"
                                   "ELF\x01\x1b[31m\x00\x02zz\n",
                                   13));
  EXPECT_EQ(vnsim("replay --cluster testbed --trace " + p("garbage.bin") + " --out " + p("o")), 2);
  EXPECT_EQ(err().find('\x1b'), std::string::npos) << err();
  EXPECT_NE(err().find("\\x1b[31m"), std::string::npos) << err();
}

TEST_F(CliContract, ImplausibleDurationIsABadRow) {
  write("jobs.jsonl", R"({"id":"a","submit_s":0,"gpus":1,"trace_duration_s":1e300})"
                      "\n"
                      R"({"id":"b","submit_s":5,"gpus":1,"trace_duration_s":60})"
                      "\n");
  ASSERT_EQ(vnsim("replay --cluster testbed --trace " + p("jobs.jsonl") + " --out " + p("o")), 0) << err();
  EXPECT_NE(slurp(dir_ / "o" / "skipped_rows.csv").find("longer than ten years"), std::string::npos);
  EXPECT_EQ(vnsim("replay --cluster testbed --trace " + p("jobs.jsonl") + " --bad-rows fail --out " + p("o")),
            2);
  EXPECT_NE(err().find("jobs.jsonl:1: duration 1e+300 s is longer than ten years"), std::string::npos)
      << err();
}

TEST_F(CliContract, AReplayKilledOnAReusedFolderLeavesNoOutputsThatLookLikeItsOwn) {
  const std::string d = p("D");
  ASSERT_EQ(vnsim("replay --cluster testbed --trace synthetic:30 --out " + d + " --quiet"), 0) << err();
  const std::string jobs = slurp(dir_ / "D" / "jobs.csv");
  std::ofstream(dir_ / "D" / "notes.txt") << "mine\n";
  std::vector<std::string> args = kLongReplay;
  args.insert(args.end(), {"--out", d});
  const pid_t pid = start(args);
  // The previous outputs are set aside one rename at a time once the
  // inputs are accepted: kill after the last one (its run.json).
  EXPECT_TRUE(wait_for(dir_ / (".D.previous-" + std::to_string(pid)) / "run.json"));
  ::kill(pid, SIGKILL);
  EXPECT_EQ(wait_exit(pid), 128 + SIGKILL);
  // The killed run's work is in its staging folder; the previous run's
  // outputs were set aside beside D when it started, so nothing in D looks
  // like a finished run. Files of the user's own stay.
  for (const char* f : {"jobs.csv", "summary.json", "run.json", "allocations.csv", "skipped_rows.csv"})
    EXPECT_FALSE(fs::exists(dir_ / "D" / f)) << f;
  EXPECT_TRUE(fs::exists(dir_ / "D" / "notes.txt"));
  EXPECT_TRUE(fs::exists(dir_ / (".D.partial-" + std::to_string(pid))));
  EXPECT_EQ(slurp(dir_ / (".D.previous-" + std::to_string(pid)) / "jobs.csv"), jobs);
  // The next run removes the dead run's folders and writes D's files.
  ASSERT_EQ(
      vnsim("replay --cluster testbed --trace synthetic:30 --policy fifo-backfill --out " + d + " --quiet"),
      0)
      << err();
  EXPECT_FALSE(fs::exists(dir_ / (".D.partial-" + std::to_string(pid))));
  EXPECT_FALSE(fs::exists(dir_ / (".D.previous-" + std::to_string(pid))));
  EXPECT_NE(slurp(dir_ / "D" / "run.json").find("fifo-backfill"), std::string::npos);
}

TEST_F(CliContract, AFailedReplayGivesThePreviousRunItsFilesBack) {
  const std::string d = p("D");
  ASSERT_EQ(vnsim("replay --cluster testbed --trace synthetic:30 --out " + d + " --quiet"), 0) << err();
  const std::string run = slurp(dir_ / "D" / "run.json");
  std::vector<std::string> args = kLongReplay;
  args.insert(args.end(), {"--out", d});
  const pid_t pid = start(args);
  EXPECT_TRUE(wait_for(dir_ / (".D.previous-" + std::to_string(pid))));
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid), 128 + SIGTERM);
  EXPECT_EQ(slurp(dir_ / "D" / "run.json"), run);
  EXPECT_FALSE(fs::exists(dir_ / (".D.previous-" + std::to_string(pid))));
}

// allocations.csv is written while the replay runs: a write that fails
// (here a file-size limit, as a full disk would) ends the run with a user
// error at once, leaves no partial output and gives the previous run its
// files back.
TEST_F(CliContract, AReplayThatCannotWriteItsAllocationsLeavesNoPartialOutput) {
  const std::string d = p("D");
  ASSERT_EQ(vnsim("replay --cluster testbed --trace synthetic:30 --out " + d + " --quiet"), 0) << err();
  const std::string run = slurp(dir_ / "D" / "run.json");
  // SIGXFSZ ignored: a write past the limit fails with EFBIG instead of
  // killing the process. 16 KiB is far less than this run's allocations.csv.
  const int rc = vnsim::testing::exit_code(
      "bash -c \"trap '' XFSZ; ulimit -f 16; exec " + std::string(VNSIM_CLI_PATH) +
      " replay --cluster testbed --trace synthetic:4000 --policy tiresias --quiet --out " + d + "\" > " +
      p("out.txt") + " 2> " + p("err.txt"));
  EXPECT_EQ(rc, 2) << err();
  EXPECT_NE(err().find("allocations.csv: cannot write"), std::string::npos) << err();
  EXPECT_EQ(slurp(dir_ / "D" / "run.json"), run);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
    EXPECT_EQ(entry.path().filename().string().find(".previous-"), std::string::npos) << entry.path();
  }
}

TEST_F(CliContract, SigintAndSigtermEndAReplayCleanly) {
  for (const int signo : {SIGINT, SIGTERM}) {
    std::vector<std::string> args = kLongReplay;
    args.insert(args.end(), {"--out", p("D")});
    const pid_t pid = start(args);
    // Interrupted once it simulates: the load note is the last line before
    // the replay starts. A fixed sleep raced with it under the sanitizers.
    const std::string load_note = "\nnote: the trace offers the cluster ";
    EXPECT_TRUE(wait_until([&] { return slurp(dir_ / "bg_err.txt").find(load_note) != std::string::npos; }))
        << slurp(dir_ / "bg_err.txt");
    ::kill(pid, signo);
    EXPECT_EQ(wait_exit(pid), 128 + signo);
    const std::string message = slurp(dir_ / "bg_err.txt");
    EXPECT_NE(
        message.find(std::string("vnsim: replay interrupted by ") + (signo == SIGINT ? "SIGINT" : "SIGTERM")),
        std::string::npos)
        << message;
    EXPECT_EQ(message.find("Process called exit"), std::string::npos) << message;
    // One line besides the up-front notes: the actor engine's cost, and the
    // load (4,000 synthetic jobs ask about 4 times what the testbed can do).
    EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 3) << message;
    EXPECT_NE(message.find(load_note), std::string::npos) << message;
    EXPECT_EQ(message.rfind("note: --actor-rings", 0), 0u) << message;
    EXPECT_FALSE(fs::exists(dir_ / "D"));
    EXPECT_FALSE(fs::exists(dir_ / (".D.partial-" + std::to_string(pid))));
  }
}

// The policy names of `vnsim help`'s "policies:" line.
std::vector<std::string> policy_names(const std::string& help) {
  const std::size_t at = help.find("\npolicies:");
  std::istringstream line(help.substr(at + 10, help.find('\n', at + 1) - at - 10));
  std::vector<std::string> names;
  for (std::string name; line >> name;) names.push_back(name);
  return names;
}

TEST_F(CliContract, CheckPassesOnEveryPolicyAndFailsOnACorruptedTimeline) {
  ASSERT_EQ(vnsim("help"), 0);
  const std::vector<std::string> policies = policy_names(out());
  ASSERT_GE(policies.size(), 10u) << out();
  for (const std::string& policy : policies) {
    const std::string d = p("run-" + policy);
    ASSERT_EQ(
        vnsim("replay --cluster testbed --trace synthetic:60 --policy " + policy + " --quiet --out " + d), 0)
        << err();
    EXPECT_EQ(vnsim("check " + d), 0) << policy << ": " << err();
    EXPECT_NE(out().find(": ok ("), std::string::npos) << out();
  }
  // Corrupt the tiresias timeline: repeat its first take, so a GPU is taken twice.
  const fs::path alloc = dir_ / "run-tiresias" / "allocations.csv";
  std::string text = slurp(alloc);
  const std::size_t first_row = text.find('\n') + 1;
  const std::string row = text.substr(first_row, text.find('\n', first_row) + 1 - first_row);
  text.insert(first_row + row.size(), row);
  write("run-tiresias/allocations.csv", text);
  EXPECT_EQ(vnsim("check " + p("run-tiresias")), 1);
  EXPECT_NE(err().find("allocations.csv:3: (t="), std::string::npos) << err();
  // Drop a completion: the job is no longer accounted for.
  text = slurp(dir_ / "run-fifo" / "allocations.csv");
  const std::size_t complete = text.rfind(",complete\n");
  const std::size_t start = text.rfind('\n', complete) + 1;
  text.erase(start, complete + 10 - start);
  write("run-fifo/allocations.csv", text);
  EXPECT_EQ(vnsim("check " + p("run-fifo")), 1);
  EXPECT_NE(err().find("no release with cause 'complete'"), std::string::npos) << err();
  EXPECT_NE(err().find("still held"), std::string::npos) << err();
}

// `text` with the number after the first `"key": ` at or after `from` moved by `delta`.
std::string bump(std::string text, const std::string& from, const std::string& key, double delta) {
  const std::size_t at = text.find("\"" + key + "\": ", text.find(from));
  const std::size_t value = at + key.size() + 4, end = text.find_first_of(",\n}", value);
  char moved[64];
  std::snprintf(moved, sizeof moved, "%.6f", std::stod(text.substr(value, end - value)) + delta);
  return text.replace(value, end - value, moved);
}

TEST_F(CliContract, CheckRecomputesEnergyAndTellsNodeFailuresFromPreemptions) {
  // Node failures: fifo never preempts, so every release that is not a
  // completion is a node going down; down GPUs draw no energy.
  ASSERT_EQ(
      vnsim("replay --cluster testbed --trace synthetic:60 --policy fifo --failure-rate 0.05 --quiet --out " +
            p("failing")),
      0)
      << err();
  const std::string timeline = slurp(dir_ / "failing" / "allocations.csv");
  EXPECT_NE(timeline.find(",node-down\n"), std::string::npos) << timeline.substr(0, 400);
  EXPECT_EQ(timeline.find(",preempt\n"), std::string::npos);
  EXPECT_EQ(vnsim("check " + p("failing")), 0) << err();
  EXPECT_NE(out().find(" J of GPU energy ("), std::string::npos) << out();
  // Two GPU types (philly-2017: K80 and P40 machines): the per-job energy is bounded, the rest exact.
  ASSERT_EQ(
      vnsim("replay --cluster philly-2017 --trace synthetic:60 --policy fifo --quiet --out " + p("two")), 0)
      << err();
  EXPECT_EQ(vnsim("check " + p("two")), 0) << err();

  ASSERT_EQ(vnsim("replay --cluster testbed --trace synthetic:60 --policy fifo --quiet --out " + p("e")), 0)
      << err();
  const std::string summary = slurp(dir_ / "e" / "summary.json"), jobs = slurp(dir_ / "e" / "jobs.csv");
  // A hand-corrupted energy total.
  write("e/summary.json", bump(summary, "\"energy_j\"", "total", 1000));
  EXPECT_EQ(vnsim("check " + p("e")), 1);
  EXPECT_NE(err().find("energy_j.total is"), std::string::npos) << err();
  // Busy energy raised everywhere alike (type, busy, total): the GPU time it stands for is not the
  // timeline's.
  std::string busy = bump(summary, "\"energy_j\"", "total", 1000);
  busy = bump(busy, "\"energy_j\"", "busy", 1000);
  busy = bump(busy, "\"energy_j\"", "busy_j", 1000);
  write("e/summary.json", busy);
  EXPECT_EQ(vnsim("check " + p("e")), 1);
  EXPECT_NE(err().find("but allocations.csv holds GPUs for"), std::string::npos) << err();
  EXPECT_EQ(err().find("energy_j.total is"), std::string::npos) << err();
  // Idle energy that does not cover the span.
  std::string idle = bump(summary, "\"energy_j\"", "total", 1000);
  idle = bump(idle, "\"energy_j\"", "idle", 1000);
  idle = bump(idle, "\"energy_j\"", "idle_j", 1000);
  write("e/summary.json", idle);
  EXPECT_EQ(vnsim("check " + p("e")), 1);
  EXPECT_NE(err().find("busy, idle and down time cover"), std::string::npos) << err();
  // One job's energy changed in jobs.csv.
  write("e/summary.json", summary);
  const std::size_t row = jobs.find('\n') + 1;
  std::string bad_jobs = jobs;
  std::size_t field = row;
  for (int i = 0; i < 17; ++i) field = bad_jobs.find(',', field) + 1;  // energy_j is the 18th column
  bad_jobs.insert(field, "9");
  write("e/jobs.csv", bad_jobs);
  EXPECT_EQ(vnsim("check " + p("e")), 1);
  EXPECT_NE(err().find("jobs.csv:2: job '"), std::string::npos) << err();
  EXPECT_NE(err().find("energy_j"), std::string::npos) << err();
  write("e/jobs.csv", jobs);
  EXPECT_EQ(vnsim("check " + p("e")), 0) << err();
}

TEST_F(CliContract, SkippedRowsSayWhetherTheyAreCorruptOrFiltered) {
  write("jobs.jsonl", R"({"id":"a","submit_s":0,"gpus":1,"model":"no-such-model","trace_duration_s":60})"
                      "\n"
                      R"({"id":"b","submit_s":5,"gpus":1,"trace_duration_s":60})"
                      "\n");
  // A model outside the catalog is routine filtering: --bad-rows fail goes on.
  ASSERT_EQ(vnsim("replay --cluster testbed --trace " + p("jobs.jsonl") + " --bad-rows fail --quiet --out " +
                  p("o")),
            0)
      << err();
  EXPECT_NE(err().find("skipped 1 rows: 0 corrupt, 1 filtered"), std::string::npos) << err();
  write("jobs.jsonl", slurp(dir_ / "jobs.jsonl") + "{\"id\": 3}\n");
  EXPECT_EQ(vnsim("replay --cluster testbed --trace " + p("jobs.jsonl") + " --bad-rows fail --quiet --out " +
                  p("o")),
            2);
  ASSERT_EQ(vnsim("replay --cluster testbed --trace " + p("jobs.jsonl") + " --quiet --out " + p("o")), 0)
      << err();
  EXPECT_NE(err().find("skipped 2 rows: 1 corrupt, 1 filtered"), std::string::npos) << err();
  EXPECT_EQ(err().find("skipped (corrupt)"), err().find("skipped ("));  // corrupt rows are listed first
  const std::string table = slurp(dir_ / "o" / "skipped_rows.csv");
  EXPECT_EQ(table.rfind("file,line,reason,kind\n", 0), 0u) << table;
  EXPECT_NE(table.find(",filtered\n"), std::string::npos) << table;
  EXPECT_NE(table.find(",corrupt\n"), std::string::npos) << table;
}

// run.json and summary.json name a trace of the shared data folder
// "${VNSIM_SHARED}/...", as command.txt does, so committed outputs name no
// folder of the machine that ran them; any other trace keeps its path.
TEST_F(CliContract, ATraceOfTheSharedDataIsNamedByTheVariable) {
  fs::create_directories(dir_ / "shared" / "traces");
  const std::string job = R"({"id":"a","submit_s":0,"gpus":1,"trace_duration_s":60})"
                          "\n";
  std::ofstream(dir_ / "shared" / "traces" / "t.jsonl") << job;
  write("own.jsonl", job);
  auto replay = [&](const std::string& trace, const std::string& out) {
    return vnsim::testing::exit_code("cd " + dir_.string() + " && VNSIM_SHARED=shared " +
                                     std::string(VNSIM_CLI_PATH) + " replay --cluster testbed --trace " +
                                     trace + " --quiet --out " + p(out) + " > " + p("out.txt") + " 2> " +
                                     p("err.txt"));
  };
  ASSERT_EQ(replay(p("shared/traces/t.jsonl"), "a"), 0) << err();
  ASSERT_EQ(replay("./shared/../shared/traces/t.jsonl", "b"), 0) << err();
  ASSERT_EQ(replay(p("own.jsonl"), "c"), 0) << err();
  const std::string label = R"x("trace": "${VNSIM_SHARED}/traces/t.jsonl (jsonl)")x";
  for (const char* out : {"a", "b"})
    for (const char* file : {"run.json", "summary.json"})
      EXPECT_NE(slurp(dir_ / out / file).find(label), std::string::npos) << slurp(dir_ / out / file);
  EXPECT_NE(slurp(dir_ / "c" / "run.json").find("\"trace\": \"" + p("own.jsonl") + " (jsonl)\""),
            std::string::npos)
      << slurp(dir_ / "c" / "run.json");
}

}  // namespace
