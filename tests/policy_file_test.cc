// Reading the site policy: the default file may be absent, but one that is
// there must be usable, and every problem names the file and the key.
#include "cli/policy_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "topology/input_error.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

const char* kGood = R"({"schema":"gdrcheck.policy/1","overrides":[
  {"check":"peermem","subject":"nv_peer_mem","status":"OK","why":"site uses nv_peer_mem"},
  {"check":"link","status":"ignore","why":"link speed is judged by the burn-in"},
  {"check":"acs","from":"UNKNOWN","status":"WARNING","why":"configs captured without root"}]})";

class PolicyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gdrcheck-policy-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text, fs::perms perms = fs::perms(0644)) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    fs::permissions(p, perms);
    return p.string();
  }
  fs::path dir_;
};

// The problem parse_policy() reports for `text`, or "" when it accepts it.
std::string policy_problem(const std::string& text) {
  try {
    parse_policy(text, "p.json");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "p.json");
    return e.problem();
  }
  return "";
}

TEST(PolicyParse, ReadsEveryField) {
  Policy p = parse_policy(kGood, "/etc/gdrcheck/policy.json");
  EXPECT_EQ(p.file, "/etc/gdrcheck/policy.json");
  ASSERT_EQ(p.overrides.size(), 3u);
  EXPECT_EQ(p.overrides[0].check, "peermem");
  EXPECT_EQ(p.overrides[0].subject, "nv_peer_mem");
  EXPECT_EQ(p.overrides[0].status, Status::Ok);
  EXPECT_EQ(p.overrides[0].why, "site uses nv_peer_mem");
  EXPECT_FALSE(p.overrides[1].status.has_value());  // ignore
  EXPECT_FALSE(p.overrides[1].subject.has_value());
  EXPECT_EQ(p.overrides[2].from, Status::Unknown);
  EXPECT_EQ(policy_problem(R"({"schema":"gdrcheck.policy/1","overrides":[]})"), "");
}

TEST(PolicyParse, RefusesWhatIsNotAPolicyNamingTheKey) {
  EXPECT_NE(policy_problem("{").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(policy_problem("[]"), "not a JSON object");
  EXPECT_EQ(policy_problem(R"({"overrides":[]})"), "\"schema\" must be \"gdrcheck.policy/1\"");
  EXPECT_EQ(policy_problem(R"({"schema":"gdrcheck.policy/2","overrides":[]})"),
            "\"schema\" must be \"gdrcheck.policy/1\"");
  EXPECT_EQ(policy_problem(R"({"schema":"gdrcheck.policy/1"})"), "has no \"overrides\"");
  EXPECT_EQ(policy_problem(R"({"schema":"gdrcheck.policy/1","overrides":{}})"),
            "\"overrides\" must be an array, not an object");
  EXPECT_NE(policy_problem(R"({"schema":"gdrcheck.policy/1","overides":[]})").find("unknown key \"overides\""),
            std::string::npos);
  auto one = [](const std::string& o) {
    return policy_problem(R"({"schema":"gdrcheck.policy/1","overrides":[)" + o + "]}");
  };
  EXPECT_NE(
      one(R"({"check":"link","status":"OK","why":"w","sbject":"GPU0"})").find("unknown key \"sbject\" in overrides[0]"),
      std::string::npos);
  EXPECT_EQ(one(R"({"check":"link","status":"OK"})"), "overrides[0] has no \"why\"");
  EXPECT_EQ(one(R"({"check":"link","status":"OK","why":""})"),
            "overrides[0].why must be a non-empty string, not a string");
  EXPECT_EQ(one(R"({"check":"link","status":1,"why":"w"})"), "overrides[0].status must be a non-empty string, not 1");
  EXPECT_NE(one(R"({"check":"lnik","status":"OK","why":"w"})")
                .find("overrides[0].check \"lnik\" is not a check (checks: gpu,"),
            std::string::npos);
  EXPECT_NE(one(R"({"check":"link","status":"warn","why":"w"})").find("overrides[0].status must be OK, WARNING"),
            std::string::npos);
  EXPECT_NE(one(R"({"check":"link","status":"OK","from":"ignore","why":"w"})").find("overrides[0].from must be"),
            std::string::npos);
  EXPECT_EQ(one(R"(7)"), "overrides[0] must be an object, not 7");
  EXPECT_EQ(one(R"({"check":"link","status":"OK","why":"a"},{"check":"link","status":"ignore","why":"b"})"),
            "overrides[1] overrides the same findings as overrides[0]");
  EXPECT_NE(one(R"({"check":"link","status":"OK","status":"CRITICAL","why":"w"})").find("appears twice"),
            std::string::npos);
  EXPECT_NE(one(R"({"check":"link","status":"OK","why":")" + std::string(600, 'x') + "\"}").find("longer than 500"),
            std::string::npos);
  EXPECT_EQ(one(R"({"check":"link","status":"OK","why":"a\nb"})"),
            "overrides[0].why contains a control character (a line break, tab or escape)");
  EXPECT_EQ(one(R"({"check":"link","status":"OK","why":"\u001b[2J"})"),
            "overrides[0].why contains a control character (a line break, tab or escape)");
}

TEST(PolicyParse, DeepOrHugeDocumentsAreRefusedNotCrashed) {
  std::string deep(100000, '[');
  EXPECT_NE(policy_problem(deep), "");
  std::string many = R"({"schema":"gdrcheck.policy/1","overrides":[)";
  for (int i = 0; i < 2000; ++i)
    many += std::string(i ? "," : "") + R"({"check":"gpu","subject":"GPU)" + std::to_string(i) +
            R"(","status":"OK","why":"w"})";
  EXPECT_EQ(policy_problem(many + "]}"), "");
}

TEST_F(PolicyFile, AbsentDefaultMeansNoPolicy) {
  EXPECT_FALSE(load_policy("", (dir_ / "policy.json").string()).has_value());
}

TEST_F(PolicyFile, DefaultFileIsReadWhenThere) {
  std::string p = write("policy.json", kGood);
  auto policy = load_policy("", p);
  ASSERT_TRUE(policy.has_value());
  EXPECT_EQ(policy->file, p);
  EXPECT_EQ(policy->overrides.size(), 3u);
}

TEST_F(PolicyFile, NamedFileMustExist) {
  std::string missing = (dir_ / "nope.json").string();
  try {
    load_policy(missing);
    FAIL() << "a missing --policy file was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), missing);
    EXPECT_EQ(e.problem(), "not found");
  }
}

TEST_F(PolicyFile, BrokenDefaultFileIsAnErrorNeverIgnored) {
  std::string p = write("policy.json", "{\"schema\":");
  EXPECT_THROW(load_policy("", p), InputError);
  fs::remove(p);
  fs::create_symlink(dir_ / "gone.json", p);  // a dangling link is a policy gone wrong
  EXPECT_THROW(load_policy("", p), InputError);
  fs::remove(p);
  fs::create_directory(p);
  EXPECT_THROW(load_policy("", p), InputError);
}

TEST_F(PolicyFile, WorldWritablePolicyIsRefused) {
  std::string p = write("policy.json", kGood, fs::perms(0666));
  try {
    load_policy(p);
    FAIL() << "a world-writable policy was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(e.problem().find("writable by every user"), std::string::npos) << e.problem();
  }
}

TEST_F(PolicyFile, UnreadableFileIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  std::string p = write("policy.json", kGood, fs::perms(0));
  EXPECT_THROW(load_policy("", p), InputError);
}

}  // namespace
}  // namespace gdrcheck
