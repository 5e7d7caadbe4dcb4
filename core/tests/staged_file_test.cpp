#include "vnsim/core/staged_file.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "vnsim/core/error.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class StagedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vnsim-staged-file-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(StagedFileTest, WritesBesideTheFileAndRenamesOnCommit) {
  std::ofstream(dir_ / "out.csv") << "previous\n";
  {
    vnsim::StagedFile staged(dir_ / "out.csv");
    EXPECT_EQ(staged.path(), dir_ / (".out.csv.partial-" + std::to_string(::getpid())));
    std::ofstream(staged.path()) << "new\n";
    EXPECT_EQ(read(dir_ / "out.csv"), "previous\n");  // untouched until the commit
    staged.commit();
  }
  EXPECT_EQ(read(dir_ / "out.csv"), "new\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(StagedFileTest, WithoutCommitThePreviousFileStaysAndTheTemporaryGoes) {
  std::ofstream(dir_ / "out.csv") << "previous\n";
  fs::path temporary;
  {
    vnsim::StagedFile staged(dir_ / "out.csv");
    temporary = staged.path();
    std::ofstream(staged.path()) << "half a fil";
  }  // a failure: the command throws before commit()
  EXPECT_EQ(read(dir_ / "out.csv"), "previous\n");
  EXPECT_FALSE(fs::exists(temporary));
}

TEST_F(StagedFileTest, RemovesTemporariesOfKilledProcessesOnly) {
  // A process that has exited stands for one killed before it could clean up.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  const fs::path stale = dir_ / (".out.csv.partial-" + std::to_string(gone));
  const fs::path live = dir_ / (".out.csv.partial-" + std::to_string(::getppid()));
  std::ofstream(stale) << "x";
  std::ofstream(live) << "x";
  vnsim::StagedFile staged(dir_ / "out.csv");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
}

TEST_F(StagedFileTest, AFolderOrAnUnwritablePlaceIsAUserError) {
  EXPECT_THROW(vnsim::StagedFile{dir_}, vnsim::InputError);
  std::ofstream(dir_ / "file") << "x";
  EXPECT_THROW(vnsim::StagedFile{dir_ / "file" / "out.csv"}, vnsim::InputError);
}

}  // namespace
