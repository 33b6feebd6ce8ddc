#include "checks/policy.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

const char* kPolicyFile = "/etc/gdrcheck/policy.json";

std::vector<Finding> node_findings() {
  return {problem("peermem", "nv_peer_mem", Status::Warning, "legacy nv_peer_mem", {"lsmod"}, "load nvidia_peermem"),
          problem("link", "GPU0", Status::Critical, "x8 of x16", {"width"}, "reseat"),
          problem("link", "GPU1", Status::Unknown, "link unreadable", {"no current_link_width"}, "run as root"),
          ok("gpu", "GPU0", "H100", {"model"})};
}

PolicyOverride rule(std::string check, std::optional<std::string> subject, std::optional<Status> to,
                    std::optional<Status> from = std::nullopt) {
  return {std::move(check), std::move(subject), from, to, "site decision"};
}

TEST(Policy, OverrideChangesStatusAndSaysSoFirstInEvidence) {
  auto fs = node_findings();
  apply_policy(fs, {kPolicyFile, {rule("peermem", "nv_peer_mem", Status::Ok)}});
  EXPECT_EQ(fs[0].status, Status::Ok);
  ASSERT_EQ(fs[0].evidence.size(), 2u);
  EXPECT_EQ(fs[0].evidence[0], "OK by site policy (/etc/gdrcheck/policy.json): site decision; was WARNING");
  EXPECT_EQ(fs[0].evidence[1], "lsmod");
  EXPECT_EQ(fs[0].summary, "legacy nv_peer_mem");  // nothing of the finding is lost
  EXPECT_EQ(fs[0].fix, "load nvidia_peermem");
  EXPECT_EQ(policy_note(fs[0]), fs[0].evidence[0]);
  EXPECT_EQ(fs[1].status, Status::Critical);  // other checks untouched
  EXPECT_TRUE(policy_note(fs[1]).empty());
}

TEST(Policy, IgnoreMakesOkAndSaysIgnored) {
  auto fs = node_findings();
  apply_policy(fs, {kPolicyFile, {rule("link", std::nullopt, std::nullopt)}});
  EXPECT_EQ(fs[1].status, Status::Ok);
  EXPECT_EQ(fs[1].evidence[0], "ignored by site policy (/etc/gdrcheck/policy.json): site decision; was CRITICAL");
  EXPECT_EQ(fs[2].status, Status::Unknown);  // the unreadable link is not ignored
  EXPECT_TRUE(policy_note(fs[2]).empty());
}

TEST(Policy, UnknownFromUnreadableEvidenceOnlyWhenTheRuleNamesIt) {
  auto fs = node_findings();
  apply_policy(fs, {kPolicyFile, {rule("link", "GPU1", Status::Ok)}});
  EXPECT_EQ(fs[2].status, Status::Unknown);
  EXPECT_TRUE(policy_note(fs[2]).empty());
  apply_policy(fs, {kPolicyFile, {rule("link", "GPU1", Status::Ok, Status::Unknown)}});
  EXPECT_EQ(fs[2].status, Status::Ok);
  EXPECT_EQ(fs[2].evidence[0], "OK by site policy (/etc/gdrcheck/policy.json): site decision; was UNKNOWN");
}

TEST(Policy, FromLimitsTheRuleToOneStatus) {
  auto fs = node_findings();
  apply_policy(fs, {kPolicyFile, {rule("link", std::nullopt, Status::Warning, Status::Warning)}});
  EXPECT_EQ(fs[1].status, Status::Critical);
}

TEST(Policy, SubjectRuleWinsOverCheckRuleWhateverTheOrder) {
  auto fs = node_findings();
  apply_policy(fs, {kPolicyFile, {rule("link", std::nullopt, Status::Warning), rule("link", "GPU0", std::nullopt)}});
  EXPECT_EQ(fs[1].status, Status::Ok);
  EXPECT_EQ(fs[1].evidence[0].rfind("ignored by site policy", 0), 0u);
}

TEST(Policy, CanRaiseSeverityAndSameStatusChangesNothing) {
  auto fs = node_findings();
  apply_policy(fs,
               {kPolicyFile, {rule("peermem", std::nullopt, Status::Critical), rule("gpu", std::nullopt, Status::Ok)}});
  EXPECT_EQ(fs[0].status, Status::Critical);
  EXPECT_EQ(fs[0].evidence[0].rfind("CRITICAL by site policy", 0), 0u);
  EXPECT_EQ(fs[3].evidence.size(), 1u);  // already OK: no note
  EXPECT_TRUE(policy_note(fs[3]).empty());
}

TEST(Policy, EmptyPolicyChangesNothing) {
  auto fs = node_findings();
  auto before = fs;
  apply_policy(fs, {kPolicyFile, {}});
  for (std::size_t i = 0; i < fs.size(); ++i) {
    EXPECT_EQ(fs[i].status, before[i].status);
    EXPECT_EQ(fs[i].evidence, before[i].evidence);
  }
}

TEST(Policy, NoteIsOnlyRecognisedInItsOwnForm) {
  Finding f = ok("gpu", "GPU0", "x", {"something by site policy (x): y"});
  EXPECT_TRUE(policy_note(f).empty());
  f.evidence = {};
  EXPECT_TRUE(policy_note(f).empty());
}

TEST(StatusFromName, ExactNamesOnly) {
  EXPECT_EQ(status_from_name("WARNING"), Status::Warning);
  EXPECT_FALSE(status_from_name("warning").has_value());
  EXPECT_FALSE(status_from_name("").has_value());
}

}  // namespace
}  // namespace gdrcheck
