// `cluster` on what other machines and users wrote: report directories
// (deep, duplicated, huge numbers, names that are host lists, FIFOs, links,
// thousands of checks, control bytes), host lists and hostfiles. Whatever
// they hold, the binary answers in time in bounded memory, prints no control
// byte, and `--drain` only ever drains one plain node name.
#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cluster/report_age.h"
#include "cluster_hostile_reports.h"
#include "hostile_run.h"
#include "terminal_checks.h"

namespace fs = std::filesystem;

namespace gdrcheck::testing {
namespace {

// Text and JSON views of `dir`; both run safely, the JSON parses.
std::pair<HostileResult, HostileResult> run_from(const HostileDir& d, const std::string& dir) {
  HostileResult text = run_hostile({"cluster", "--from", dir});
  HostileResult json = run_hostile({"cluster", "--from", dir, "--json"});
  EXPECT_TRUE(ran_safely(text, d));
  EXPECT_TRUE(ran_safely(json, d));
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out.substr(0, 500);
  return {text, json};
}

TEST(HostileClusterFrom, MalformedReportsAreUnknownNamingTheFile) {
  HostileDir d;
  std::string dir = d.in() + "/reports";
  d.write("reports/gpu01.json", minimal_report("gpu01", "OK", {{"gpu", "OK"}}));
  d.write("reports/deep.json", "{\"schema\": \"gdrcheck.node/1\", \"host\": \"deep\", \"x\": " +
                                   std::string(100000, '[') + std::string(100000, ']') + "}");
  d.write("reports/dup.json", R"({"schema": "gdrcheck.node/1", "host": "dup", "status": "OK", "status": "CRITICAL",)"
                              R"( "gpus": [], "nics": [], "pairs": [], "findings": []})");
  nlohmann::json port = nlohmann::json::parse(minimal_report("port", "OK"));
  d.write("reports/port.json", port.dump().substr(0, port.dump().size() - 1) + ", \"port\": 1e300}");
  auto [text, json] = run_from(d, dir);
  EXPECT_NE(text.exit_code, kExitOk);
  for (const char* name : {"deep.json", "dup.json"})
    EXPECT_NE((text.out + text.err).find(name), std::string::npos) << name << " is named as unusable: " << text.out;
}

TEST(HostileClusterFrom, DrainOnlyPlainNodeNames) {
  HostileDir d;
  std::string dir = d.in() + "/reports";
  std::string log = d.base() + "/scontrol.log";
  std::string scontrol = d.write("bin/scontrol", "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + log + "'\n");
  fs::permissions(scontrol, fs::perms::owner_all);
  const std::vector<std::string> hostile = {"ALL", "gpu[00-99],login[1-2]", "-x", "all", "a,b"};
  for (const auto& host : hostile)
    d.write("reports/" + host + ".json", minimal_report(host, "CRITICAL", {{"acs", "CRITICAL"}}));
  // gpu02's report is fresh (written now): the one a drain may act on.
  nlohmann::json gpu02 = nlohmann::json::parse(minimal_report("gpu02", "CRITICAL", {{"acs", "CRITICAL"}}));
  gpu02["generated_at"] = format_utc_time(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  d.write("reports/gpu02.json", gpu02.dump());
  HostileResult r = run_hostile({"cluster", "--from", dir, "--drain", "--scontrol", scontrol});
  EXPECT_TRUE(ran_safely(r, d));
  EXPECT_EQ(r.exit_code, kExitCritical);
  std::ifstream f(log);
  std::vector<std::string> drained;
  for (std::string line; std::getline(f, line);) drained.push_back(line);
  EXPECT_EQ(drained, std::vector<std::string>{"update NodeName=gpu02 State=DRAIN Reason=gdrcheck: acs CRITICAL"});
  for (const auto& host : hostile)
    EXPECT_EQ(r.out.find("NodeName=" + host), std::string::npos) << "a drain command printed for " << host;
}

TEST(HostileClusterFrom, FifoAndLinkedReportsAreNotRead) {
  HostileDir d;
  std::string dir = d.in() + "/reports";
  d.write("reports/gpu01.json", minimal_report("gpu01", "OK", {{"gpu", "OK"}}));
  HostileDir::make_fifo(dir + "/gpu02.json");
  HostileDir::make_link(dir + "/gpu03.json", d.canary_path());
  HostileDir::make_link(dir + "/gpu04.json", "/dev/zero");
  HostileSpec spec = HostileSpec::command({"cluster", "--from", dir});
  spec.timeout = std::chrono::seconds(10);
  HostileResult r = run_hostile(spec);
  EXPECT_TRUE(ran_safely(r, d));
  EXPECT_EQ(r.exit_code, kExitUnknown) << r.out << r.err;
  for (const char* name : {"gpu02", "gpu03", "gpu04"}) EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

TEST(HostileClusterFrom, ThousandCheckNamesInOneReport) {
  HostileDir d;
  std::vector<std::pair<std::string, std::string>> findings;
  for (int i = 0; i < 1000; ++i) findings.push_back({"check" + std::to_string(i), i % 2 ? "CRITICAL" : "OK"});
  d.write("reports/gpu01.json", minimal_report("gpu01", "CRITICAL", findings));
  d.write("reports/gpu02.json", minimal_report("gpu02", "OK", {{"gpu", "OK"}}));
  auto [text, json] = run_from(d, d.in() + "/reports");
  EXPECT_LT(text.elapsed, std::chrono::seconds(5));
  EXPECT_LT(text.out.size(), 1u << 20) << "the table stays readable";
}

TEST(HostileClusterFrom, ControlBytesAndBadUtf8InHostsFindingsAndFileNames) {
  HostileDir d;
  const std::string bad =
      "gpu\x1b]0;x\x07\xff\x9b"
      "01";
  nlohmann::json report = nlohmann::json::parse(minimal_report("gpu01", "CRITICAL", {{"acs", "CRITICAL"}}));
  std::string text = report.dump();
  // Raw bytes inside JSON strings, as a hostile writer would put them.
  auto put = [&](const std::string& field, const std::string& value) {
    std::string key = "\"" + field + "\":\"";
    std::size_t at = text.find(key);
    if (at != std::string::npos) text.insert(at + key.size(), value);
  };
  put("host", bad);
  put("summary", kHostile.substr(0, kHostile.find('\n')));
  d.write("reports/" + bad + ".json", text);
  d.write("reports/gpu02.json", minimal_report("gpu02", "OK", {{"gpu", "OK"}}));
  run_from(d, d.in() + "/reports");
}

TEST(HostileHosts, HugeHostListFailsFastInBoundedMemory) {
  HostileDir d;
  HostileResult r = run_hostile({"cluster", "--ssh", "a[0-999999]b[0-999999]c[0-999]"});
  EXPECT_TRUE(ran_safely(r, d));
  EXPECT_NE(r.exit_code, kExitOk);
  EXPECT_LT(r.elapsed, std::chrono::seconds(5));
  EXPECT_LT(r.peak_rss_kib, 256 * 1024);
}

TEST(HostileHosts, FifoHostfileIsRefused) {
  HostileDir d;
  std::string fifo = d.in() + "/hosts";
  HostileDir::make_fifo(fifo);
  HostileSpec spec = HostileSpec::command({"cluster", "--hostfile", fifo});
  spec.timeout = std::chrono::seconds(10);
  EXPECT_TRUE(refused_naming(run_hostile(spec), d, fifo));
}

TEST(HostileHosts, TwoMillionLineHostfileIsRefused) {
  HostileDir d;
  std::string file = d.in() + "/hosts";
  {
    std::ofstream f(file);
    for (int i = 0; i < 2000000; ++i) f << "node" << i << "\n";
  }
  // ssh to two million hosts is never what the operator meant: refused
  // before any connection, with the file named.
  HostileSpec spec = HostileSpec::command({"cluster", "--hostfile", file});
  spec.env_set = {{"PATH", d.in()}};  // no ssh to run, should it try
  HostileResult r = run_hostile(spec);
  EXPECT_TRUE(refused_naming(r, d, file));
  EXPECT_LT(r.elapsed, std::chrono::seconds(10));
  EXPECT_LT(r.peak_rss_kib, 1024 * 1024);
}

}  // namespace
}  // namespace gdrcheck::testing
