// `gdrcheck gds --gdscheck FILE` end to end: real gdscheck -p outputs
// (tests/data/gdscheck) against roots built from
// tests/data/nodes/gds-server.json, one that agrees and one that differs,
// and files that are not gdscheck output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::node_root;
using testing::run_gdrcheck;
using testing::test_data;

std::vector<json> gdscheck_findings(const json& report) {
  std::vector<json> out;
  for (const auto& f : report["findings"])
    if (f["check"] == "gds.gdscheck") out.push_back(f);
  return out;
}

json subject(const std::vector<json>& findings, const std::string& s) {
  for (const auto& f : findings)
    if (f["subject"] == s) return f;
  return json();
}

bool json_text_has(const json& text, const std::string& part) {
  return text.get<std::string>().find(part) != std::string::npos;
}

TEST(GdsGdscheckCli, NoNvidiaFsOnEitherSideAgrees) {
  // gdscheck of GDS 1.16 on a host without nvidia-fs (every transport
  // "compat"), against the server's variant without nvidia-fs.
  const std::string file = test_data("gdscheck/aikitoria-15-gds-1.16.0-compat-tokens-cut.txt");
  auto r =
      run_gdrcheck({"gds", "--json", "--root", node_root("gds-server", {"nvidia-fs-missing"}), "--gdscheck", file});
  EXPECT_TRUE(r.err.empty()) << r.err;
  json j = json::parse(r.out);
  auto f = gdscheck_findings(j);
  ASSERT_EQ(f.size(), 1u) << j.dump(1);
  EXPECT_EQ(f[0]["status"], "OK");
  std::string ev = f[0]["evidence"].dump();
  EXPECT_NE(ev.find("nvidia-fs not loaded"), std::string::npos) << ev;
  EXPECT_NE(ev.find("allow_compat_mode true"), std::string::npos) << ev;
  EXPECT_NE(ev.find("/etc/cufile.json: properties.allow_compat_mode = true"), std::string::npos) << ev;
  EXPECT_NE(ev.find("no nvfs route, not registered (nvidia-fs not loaded): NVMe (nvme)"), std::string::npos) << ev;
  // The cross-check adds nothing worse: gds.driver's WARNING (nvidia-fs not loaded) decides.
  EXPECT_EQ(j["status"], "WARNING");
  EXPECT_EQ(r.exit_code, 1);
}

TEST(GdsGdscheckCli, AnotherMachinesOutputDiffersFactByFact) {
  // gdscheck.py of GDS 1.16.1 (nvidia_fs 2.27, every transport Unsupported,
  // compat mode off) against the server (nvidia-fs 2.26.6 with nvme,
  // nvme_rdma and lnet; the shipped cufile.json, compat mode on).
  const std::string file = test_data("gdscheck/gds-nvidia-fs-77-gds-1.16.1-trace-env-cut.txt");
  auto r = run_gdrcheck({"gds", "--json", "--root", node_root("gds-server"), "--gdscheck", file});
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.out;
  json j = json::parse(r.out);
  EXPECT_EQ(j["status"], "WARNING");
  auto f = gdscheck_findings(j);
  json version = subject(f, "nvidia-fs version");
  ASSERT_FALSE(version.is_null()) << j.dump(1);
  EXPECT_EQ(version["status"], "WARNING");
  EXPECT_TRUE(json_text_has(version["summary"], "gdscheck saw nvidia-fs 2.27, the files show 2.26.6"))
      << version["summary"];
  for (const char* transport : {"NVMe", "NVMeOF", "DDN EXAScaler"}) {
    json t = subject(f, transport);
    ASSERT_FALSE(t.is_null()) << transport << j.dump(1);
    EXPECT_EQ(t["status"], "WARNING");
  }
  json compat = subject(f, "allow_compat_mode");
  ASSERT_FALSE(compat.is_null());
  EXPECT_TRUE(
      json_text_has(compat["summary"], "gdscheck ran with allow_compat_mode false, but /etc/cufile.json sets it true"))
      << compat["summary"];
  for (const auto& x : f) EXPECT_NE(x["status"], "CRITICAL") << x.dump();

  // The text report shows the same, with the file named.
  auto text = run_gdrcheck({"gds", "--root", node_root("gds-server"), "--gdscheck", file});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("gds.gdscheck"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("gds-nvidia-fs-77-gds-1.16.1-trace-env-cut.txt"), std::string::npos) << text.out;
}

TEST(GdsGdscheckCli, OutputOnStandardInput) {
  std::ifstream in(test_data("gdscheck/aikitoria-15-gds-1.16.0-compat-tokens-cut.txt"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto r = run_gdrcheck({"gds", "--json", "--root", node_root("gds-server"), "--gdscheck", "-"}, text);
  EXPECT_TRUE(r.err.empty()) << r.err;
  auto f = gdscheck_findings(json::parse(r.out));
  EXPECT_FALSE(subject(f, "nvidia-fs").is_null()) << "gdscheck saw no nvidia-fs; the server has it";
}

TEST(GdsGdscheckCli, AFileThatIsNotGdscheckOutputIsAnErrorNamingIt) {
  const std::string root = node_root("gds-server");
  const std::string other = test_data("nodes/gds-server.json");
  auto r = run_gdrcheck({"gds", "--root", root, "--gdscheck", other});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("gdrcheck gds: " + other + ": not gdscheck -p output"), std::string::npos) << r.err;

  auto missing = run_gdrcheck({"gds", "--root", root, "--gdscheck", "/nonexistent/gdscheck.txt"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_TRUE(missing.out.empty()) << missing.out;
  EXPECT_NE(missing.err.find("/nonexistent/gdscheck.txt"), std::string::npos) << missing.err;

  // Read before a watched command would run: the command never starts.
  auto watched =
      run_gdrcheck({"gds", "--root", root, "--gdscheck", other, "--watch", "--", "/bin/echo", "cmd-was-run"});
  EXPECT_EQ(watched.exit_code, 3);
  EXPECT_TRUE(watched.out.empty()) << watched.out;
  EXPECT_EQ(watched.err.find("cmd-was-run"), std::string::npos) << watched.err;
}

}  // namespace
}  // namespace gdrcheck
