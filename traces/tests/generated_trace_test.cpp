// The trace names that generate a trace instead of reading a file
// (generated_trace.hpp): which generator each picks, how many jobs, and the
// error for each malformed name.
#include "vnsim/traces/generated_trace.hpp"

#include <gtest/gtest.h>

#include "vnsim/core/error.hpp"
#include "vnsim/traces/synthetic_philly.hpp"

namespace vnsim {
namespace {

std::string error_of(const std::string& name) {
  try {
    generate_trace(name, 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GeneratedTrace, NamesStartingWithSyntheticAreGeneratedOthersAreFiles) {
  EXPECT_TRUE(is_generated_trace("synthetic"));
  EXPECT_TRUE(is_generated_trace("synthetic:40"));
  EXPECT_TRUE(is_generated_trace("synthetic-helios:9"));
  EXPECT_FALSE(is_generated_trace("traces/synthetic.csv"));
  EXPECT_FALSE(is_generated_trace("jobs.jsonl"));
}

TEST(GeneratedTrace, SyntheticIsThePhillyLikeGeneratorAtThePhillyRate) {
  // 31.5 jobs/h: 82,247 jobs over 108.9 days of the Pollux-derived Philly trace.
  const GeneratedTrace t = generate_trace("synthetic:7", 3);
  const std::vector<JobSpec> want = generate_philly_like(7, 31.5, 3);
  ASSERT_EQ(t.jobs.size(), 7u);
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(t.jobs[i].id, want[i].id);
    EXPECT_EQ(t.jobs[i].submit_s, want[i].submit_s);
    EXPECT_EQ(t.jobs[i].iterations, want[i].iterations);
  }
  EXPECT_EQ(t.description, "synthetic philly-like, 7 jobs, seed 3");
}

TEST(GeneratedTrace, AKindDrawsItsProfileAndWithoutNFiveThousandJobs) {
  const GeneratedTrace t = generate_trace("synthetic-helios:4", 2);
  ASSERT_EQ(t.jobs.size(), 4u);
  EXPECT_EQ(t.jobs[0].id, "synthetic-helios-0");
  EXPECT_EQ(t.description, "synthetic helios, 4 jobs, Poisson, seed 2");
  EXPECT_EQ(generate_trace("synthetic-pai", 2).jobs.size(), 5000u);
}

TEST(GeneratedTrace, MalformedNamesSayWhatToWrite) {
  EXPECT_EQ(error_of("synthetic5"), "--trace: write 'synthetic' or 'synthetic:N', got 'synthetic5'");
  EXPECT_EQ(error_of("synthetic:0"), "option --trace synthetic:N: must be >= 1");
  EXPECT_EQ(error_of("synthetic:x"), "option --trace synthetic:N: 'x' is not an integer");
  EXPECT_EQ(error_of("synthetic-helios:0"), "option --trace synthetic-<kind>:N: must be >= 1");
  EXPECT_NE(error_of("synthetic-nope").find("unknown synthetic trace kind 'nope'"), std::string::npos);
}

}  // namespace
}  // namespace vnsim
