// allocations.csv written row by row while the replay runs
// (experiments/cli/allocations_csv.hpp): the rows, hand-written here, of a
// log with a migration, a resize onto more GPUs, a preemption and a node
// loss; the batch writer and the stream give the same bytes.
#include "allocations_csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "command_support.hpp"
#include "vnsim/core/error.hpp"

namespace {

namespace fs = std::filesystem;
using namespace vnsim;

std::vector<AllocationEvent> log_with_every_cause() {
  using C = AllocationCause;
  return {
      {0, 0, true, {1, 0}, kGpuMilli, C::Start},
      {0, 1, true, {4}, 500, C::Start},
      // Same count, other GPUs: a migration, both rows.
      {10, 0, false, {0, 1}, kGpuMilli, C::Resize},
      {10, 0, true, {3, 2}, kGpuMilli, C::Resize},
      // More GPUs: a resize, both rows.
      {20, 1, false, {4}, 500, C::Resize},
      {20, 1, true, {4, 5}, 500, C::Resize},
      {30, 0, false, {2, 3}, kGpuMilli, C::Preempt},
      {40, 1, false, {4, 5}, 500, C::NodeDown},
      {50, 0, true, {0}, kGpuMilli, C::Start},
      {62.5, 0, false, {0}, kGpuMilli, C::Complete},
  };
}

const char* const kExpected =
    "time,job_id,event,allocated_resources,gpu_milli,cause\n"
    "0.000000,a,take,0-1,1000,start\n"
    "0.000000,\"b,2\",take,4,500,start\n"
    "10.000000,a,release,0-1,1000,migrate\n"
    "10.000000,a,take,2-3,1000,migrate\n"
    "20.000000,\"b,2\",release,4,500,resize\n"
    "20.000000,\"b,2\",take,4-5,500,resize\n"
    "30.000000,a,release,2-3,1000,preempt\n"
    "40.000000,\"b,2\",release,4-5,500,node-down\n"
    "50.000000,a,take,0,1000,start\n"
    "62.500000,a,release,0,1000,complete\n";

class AllocationsCsv : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vnsim-alloc-csv-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AllocationsCsv, StreamedRowsAreTheHandWrittenOnes) {
  const fs::path path = dir_ / "streamed.csv";
  cli::AllocationCsvStream stream(path.string(), {"a", "b,2"});
  for (const AllocationEvent& e : log_with_every_cause()) stream.add(e);
  stream.finish();
  EXPECT_EQ(vnsim::testing::slurp(path), kExpected);
}

TEST_F(AllocationsCsv, BatchWriterGivesTheSameBytes) {
  std::vector<JobRecord> jobs(2);
  jobs[0].id = "a";
  jobs[1].id = "b,2";
  const fs::path path = dir_ / "batch.csv";
  cli::write_allocations_csv(path.string(), log_with_every_cause(), jobs);
  EXPECT_EQ(vnsim::testing::slurp(path), kExpected);
}

TEST_F(AllocationsCsv, AnEmptyLogIsTheHeaderAlone) {
  const fs::path path = dir_ / "empty.csv";
  cli::AllocationCsvStream stream(path.string(), {});
  stream.finish();
  EXPECT_EQ(vnsim::testing::slurp(path), "time,job_id,event,allocated_resources,gpu_milli,cause\n");
}

TEST_F(AllocationsCsv, AFileThatCannotBeCreatedIsAUserError) {
  EXPECT_THROW(cli::AllocationCsvStream((dir_ / "no-such-folder" / "a.csv").string(), {"a"}), InputError);
}

}  // namespace
