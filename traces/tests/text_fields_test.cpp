#include "text_fields.hpp"

#include <gtest/gtest.h>

namespace vnsim::traces_detail {
namespace {

TEST(CivilDate, KnownDays) {
  EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
  EXPECT_EQ(days_from_civil(1970, 1, 2), 1);
  EXPECT_EQ(days_from_civil(1969, 12, 31), -1);
  // 30 years, 7 of them leap (72, 76, 80, 84, 88, 92, 96): 30*365 + 7.
  EXPECT_EQ(days_from_civil(2000, 1, 1), 10957);
  // 2000 is a leap year (divisible by 400): Feb 29 exists, Mar 1 is day 60 of the year.
  EXPECT_EQ(days_from_civil(2000, 3, 1) - days_from_civil(2000, 1, 1), 60);
  // 1900 is not (divisible by 100 only): Mar 1 is day 59.
  EXPECT_EQ(days_from_civil(1900, 3, 1) - days_from_civil(1900, 1, 1), 59);
  // 2017-01-01: 47 years after 1970 with 12 leap years (72..2016).
  EXPECT_EQ(days_from_civil(2017, 1, 1), 47 * 365 + 12);
}

TEST(NaiveTimestamp, SecondsAndDifferences) {
  EXPECT_EQ(parse_naive_timestamp("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(parse_naive_timestamp("1970-01-02 01:02:03"), 86400 + 3723);
  const auto a = parse_naive_timestamp("2017-10-09 05:59:52");
  const auto b = parse_naive_timestamp("2017-10-09 07:01:55");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*b - *a, 1 * 3600 + 2 * 60 + 3);
  // No DST: the 2017-11-05 US change does not shift naive times.
  EXPECT_EQ(*parse_naive_timestamp("2017-11-06 00:00:00") - *parse_naive_timestamp("2017-11-05 00:00:00"),
            86400);
  EXPECT_EQ(*parse_naive_timestamp("2018-01-01 00:00:00") - *parse_naive_timestamp("2017-12-31 23:59:59"), 1);
}

TEST(NaiveTimestamp, RejectsMalformed) {
  for (const char* bad :
       {"", "2017-10-09", "2017-10-09T07:01:55", "2017-13-01 00:00:00", "2017-02-29 00:00:00",
        "2017-04-31 00:00:00", "2017-10-09 24:00:00", "2017-10-09 23:60:00", "2017-10-09 23:59:60",
        "2017-1a-09 00:00:00", "2017-10-09 00:00:000", "2017-00-10 00:00:00"})
    EXPECT_FALSE(parse_naive_timestamp(bad)) << bad;
  EXPECT_TRUE(parse_naive_timestamp("2016-02-29 00:00:00"));
}

TEST(StrictNumbers, WholeFieldMustParse) {
  EXPECT_EQ(parse_finite_double("66.0"), 66.0);
  EXPECT_EQ(parse_finite_double(" 1e3 "), 1000.0);
  EXPECT_EQ(parse_finite_double("+2.5"), 2.5);
  for (const char* bad : {"", "abc", "12abc", "nan", "inf", "1.0.0", "--1"})
    EXPECT_FALSE(parse_finite_double(bad)) << bad;
  EXPECT_EQ(parse_integer("8"), 8);
  EXPECT_EQ(parse_integer("-3"), -3);
  for (const char* bad : {"", "1.5", "8.0", "x", "99999999999999999999"})
    EXPECT_FALSE(parse_integer(bad)) << bad;
}

TEST(SplitCommas, KeepsEmptyFields) {
  const auto f = split_commas("a,,b,");
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0], "a");
  EXPECT_EQ(f[1], "");
  EXPECT_EQ(f[2], "b");
  EXPECT_EQ(f[3], "");
}

}  // namespace
}  // namespace vnsim::traces_detail
