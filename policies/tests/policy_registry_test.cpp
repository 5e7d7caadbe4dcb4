#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {
namespace {

TEST(PolicyRegistry, ListsEveryPolicyOnceInAFixedOrder) {
  EXPECT_EQ(policy_names(), (std::vector<std::string>{"fifo", "fifo-backfill"}));
}

TEST(PolicyRegistry, EveryListedNameBuildsAPolicyOfThatName) {
  for (const auto& name : policy_names()) {
    auto policy = make_policy(name);
    ASSERT_NE(policy, nullptr) << name;
    EXPECT_EQ(policy->name(), name);
    EXPECT_FALSE(policy->next_timer_s(0).has_value()) << name << " is event-driven";
  }
}

TEST(PolicyRegistry, UnknownNameErrorNamesItAndListsTheValidOnes) {
  try {
    make_policy("fif0");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'fif0'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fifo, fifo-backfill"), std::string::npos) << msg;
  }
}

TEST(PolicyRegistry, NamesAreCaseSensitive) {
  EXPECT_THROW(make_policy("FIFO"), InputError);
}

}  // namespace
}  // namespace vnsim
