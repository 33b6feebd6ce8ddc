// `node --root R` and `topo --root R` on a recorded root that another
// machine (or another user on a shared file system) wrote: links that
// leave the root, FIFOs and devices where files should be, link loops,
// terminal control sequences in values, evidence that is missing. The real
// binary runs on each; whatever the tree holds, it answers in time, prints
// nothing from outside the root and no control byte, writes nothing, and
// never turns evidence it could not read into a verdict.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "hostile_run.h"
#include "terminal_checks.h"

namespace fs = std::filesystem;

namespace gdrcheck::testing {
namespace {

// A fresh example root inside a HostileDir, and the places the cases plant
// their files.
struct RootCase {
  HostileDir dir;
  std::string root = dir.in() + "/root";

  RootCase() { fs::copy(template_root(), root, fs::copy_options::recursive | fs::copy_options::copy_symlinks); }

  // The example root is built once per test binary and copied per case.
  static const std::string& template_root() {
    static const HostileDir dir;
    static const std::string path = [] {
      build_example_root(dir.in() + "/root");
      return dir.in() + "/root";
    }();
    return path;
  }

  std::string at(const std::string& relative) const { return root + "/" + relative; }

  // The config space file of the bridge right above the first 3D controller
  // (a GPU): the ACS bits between that GPU and its NIC are read from it.
  std::string gpu_bridge_config() const {
    std::vector<std::string> gpus;
    for (const auto& e : fs::directory_iterator(at("sys/bus/pci/devices"))) {
      std::ifstream f(e.path() / "class");
      std::string cls;
      f >> cls;
      if (cls.rfind("0x0302", 0) == 0) gpus.push_back(fs::canonical(e.path()).string());
    }
    std::sort(gpus.begin(), gpus.end());
    if (gpus.empty()) throw std::runtime_error("no GPU in the example root");
    return fs::path(gpus.front()).parent_path().string() + "/config";
  }

  // A relative link target from `file` that climbs out of the root to the
  // canary, as a link a careless reader would follow would do.
  std::string escaping_target(const std::string& file) const {
    std::string rel = fs::relative(fs::path(file).parent_path(), dir.base()).string();
    std::size_t depth = std::count(rel.begin(), rel.end(), '/') + 1;
    std::string up;
    for (std::size_t i = 0; i < depth; ++i) up += "../";
    return up + "canary";
  }
};

struct Views {
  HostileResult node, node_json, topo, topo_json;
};

// The four views of a root; each must have run safely, written nothing
// anywhere in the test's directory or as /tmp/gdrcheck-*, and the JSON ones
// must parse.
Views run_views(const RootCase& c) {
  Views v;
  TreeSnapshot before = snapshot_tree(c.dir.base());
  // After one view hangs the others are not waited for: the case has failed.
  bool hung = false;
  auto view = [&](HostileResult& r, std::vector<std::string> args) {
    if (hung) return;
    HostileSpec spec = HostileSpec::command(std::move(args));
    spec.timeout = std::chrono::seconds(10);
    r = run_hostile(spec);
    hung = r.timed_out;
    EXPECT_TRUE(ran_safely(r, c.dir)) << "gdrcheck " << spec.args[0] << " " << spec.args.back();
  };
  view(v.node, {"node", "--root", c.root});
  view(v.node_json, {"node", "--root", c.root, "--json"});
  view(v.topo, {"topo", "--root", c.root});
  view(v.topo_json, {"topo", "--root", c.root, "--json"});
  for (const HostileResult* r : {&v.node_json, &v.topo_json})
    if (!r->out.empty()) {
      EXPECT_TRUE(nlohmann::json::accept(r->out)) << r->out.substr(0, 500);
    }
  EXPECT_EQ(tree_difference(before, snapshot_tree(c.dir.base())), "");
  for (const HostileResult* r : {&v.node, &v.node_json, &v.topo, &v.topo_json})
    EXPECT_TRUE(r->temp_left.empty()) << "left in TMPDIR: " << r->temp_left.front();
  return v;
}

// Evidence the binary could not read makes the node UNKNOWN: never OK,
// and never CRITICAL (which would drain a node for a file it did not see).
void expect_unknown(const Views& v) {
  EXPECT_EQ(v.node.exit_code, kExitUnknown) << v.node.out;
  EXPECT_EQ(v.node_json.exit_code, kExitUnknown);
  if (nlohmann::json::accept(v.node_json.out)) {
    EXPECT_EQ(nlohmann::json::parse(v.node_json.out).value("status", ""), "UNKNOWN");
  }
}

TEST(HostileRoot, ExampleRootIsCleanAndReady) {
  RootCase c;
  Views v = run_views(c);
  EXPECT_EQ(v.node.exit_code, kExitOk) << v.node.err;
  EXPECT_NE(v.node.out.find("GPUDirect RDMA ready"), std::string::npos);
  EXPECT_LT(v.node.peak_rss_kib, 512 * 1024);
}

TEST(HostileRoot, CpuinfoLinkedToAFileOutsideTheRoot) {
  RootCase absolute;
  HostileDir::make_link(absolute.at("proc/cpuinfo"), absolute.dir.canary_path());
  run_views(absolute);
  RootCase relative;
  HostileDir::make_link(relative.at("proc/cpuinfo"), relative.escaping_target(relative.at("proc/cpuinfo")));
  run_views(relative);
}

TEST(HostileRoot, BridgeConfigLinkedOutsideTheRootIsUnknown) {
  RootCase c;
  std::string config = c.gpu_bridge_config();
  HostileDir::make_link(config, c.escaping_target(config));
  expect_unknown(run_views(c));
}

TEST(HostileRoot, HostnameLinkedToEtcShadow) {
  RootCase c;
  HostileDir::make_link(c.at("etc/hostname"), "/etc/shadow");
  Views v = run_views(c);
  std::ifstream shadow("/etc/shadow");
  std::string first;
  std::getline(shadow, first);
  if (first.size() > 8)
    for (const HostileResult* r : {&v.node, &v.node_json, &v.topo, &v.topo_json}) {
      EXPECT_EQ(r->out.find(first), std::string::npos);
      EXPECT_EQ(r->err.find(first), std::string::npos);
    }
}

TEST(HostileRoot, FifoAsCpuinfoOrHostnameDoesNotBlock) {
  for (const char* file : {"proc/cpuinfo", "etc/hostname"}) {
    SCOPED_TRACE(file);
    RootCase c;
    HostileDir::make_fifo(c.at(file));
    run_views(c);
  }
}

TEST(HostileRoot, FifoAsBridgeConfigIsUnknown) {
  RootCase c;
  HostileDir::make_fifo(c.gpu_bridge_config());
  expect_unknown(run_views(c));
}

TEST(HostileRoot, LinksToDevZeroAreNotReadForever) {
  RootCase c;
  HostileDir::make_link(c.at("proc/cpuinfo"), "/dev/zero");
  HostileDir::make_link(c.gpu_bridge_config(), "/dev/zero");
  Views v = run_views(c);
  expect_unknown(v);
  EXPECT_LT(v.node.peak_rss_kib, 512 * 1024);
}

TEST(HostileRoot, SymlinkLoops) {
  RootCase c;
  HostileDir::make_link(c.at("etc/hostname"), "hostname.2");
  HostileDir::make_link(c.at("etc/hostname.2"), "hostname");
  HostileDir::make_link(c.at("proc/cpuinfo"), "cpuinfo");
  HostileDir::make_link(c.at("sys/class/infiniband/loop"), ".");
  run_views(c);
}

TEST(HostileRoot, ControlSequencesAndBadUtf8InHostnameAndFirmware) {
  RootCase c;
  c.dir.write("root/etc/hostname", kHostile + "\n");
  c.dir.write("root/proc/sys/kernel/hostname", kHostile + "\n");
  std::string fw = fs::canonical(c.at("sys/class/infiniband/mlx5_0")).string() + "/fw_ver";
  std::ofstream(fw, std::ios::trunc) << "28.39\x1b[2J\x1b]0;owned\x07\r\b\x9b"
                                     << "1002\xff\n";
  Views v = run_views(c);
  EXPECT_NE(v.node.out.find("evil"), std::string::npos) << "the hostname is shown, escaped";
}

TEST(HostileRoot, MissingBridgeConfigIsUnknownNeverCritical) {
  RootCase c;
  fs::remove(c.gpu_bridge_config());
  expect_unknown(run_views(c));
}

// strace's view of every file the binary opened: the kernel's own path of
// each descriptor it got (-y), so a link followed anywhere shows where it
// really led.
std::vector<std::string> opened_paths(const std::string& log) {
  std::vector<std::string> paths;
  std::ifstream f(log);
  for (std::string line; std::getline(f, line);) {
    std::size_t eq = line.rfind(") = ");
    if (eq == std::string::npos) continue;
    std::size_t open = line.find('<', eq), close = line.rfind('>');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    paths.push_back(line.substr(open + 1, close - open - 1));
  }
  return paths;
}

// What the binary may open outside the root it reads: its own shared
// libraries and hwloc's plugins, the loader cache, the PCI name database
// and hwloc's data, its own /proc entries, the live CPU set hwloc may look
// at, and the invoking user's account (NSS) to find the home directory whose
// .nccl.conf it then reads inside the root.
bool allowed_outside_root(const std::string& path, const std::set<std::string>& pids) {
  auto starts = [&](const std::string& prefix) { return path.rfind(prefix, 0) == 0; };
  for (const char* lib : {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/"})
    if (starts(lib)) return true;
  for (const char* exact : {"/etc/ld.so.cache", "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids",
                            "/etc/nsswitch.conf", "/etc/passwd", "/dev/null"})
    if (path == exact) return true;
  for (const char* prefix : {"/usr/share/hwloc/", "/proc/self/", "/sys/devices/system/cpu/"})
    if (starts(prefix)) return true;
  for (const auto& pid : pids)
    if (starts("/proc/" + pid + "/")) return true;
  return path == hostile_binary() || path == fs::canonical(hostile_binary()).string();
}

// The paths a run of the binary opened, by strace's view of each
// descriptor (-y: the kernel's own path), and the pids it saw.
std::vector<std::string> strace_opens(const RootCase& c, const std::string& name, std::set<std::string>& pids) {
  std::string log = c.dir.base() + "/" + name + ".strace";
  HostileSpec spec = HostileSpec::command({"node", "--root", c.root, "--json"});
  spec.timeout = std::chrono::seconds(40);
  spec.wrapper = {"strace", "-f", "-y", "-e", "trace=open,openat,openat2", "-o", log};
  HostileResult r = run_hostile(spec);
  EXPECT_TRUE(ran_safely(r, c.dir));
  std::ifstream f(log);
  for (std::string line; std::getline(f, line);) pids.insert(line.substr(0, line.find(' ')));
  return opened_paths(log);
}

void expect_inside_root(const RootCase& c, const std::vector<std::string>& paths, const std::set<std::string>& pids) {
  std::string root = fs::canonical(c.root).string();
  for (const auto& p : paths) {
    if (p == root || p.rfind(root + "/", 0) == 0) continue;
    EXPECT_TRUE(allowed_outside_root(p, pids)) << "opened outside the root: " << p;
  }
}

bool have_strace() {
  return access("/usr/bin/strace", X_OK) == 0 || access("/bin/strace", X_OK) == 0;
}

// A full read of a clean root (hwloc in the probe child and in-process):
// every file opened is inside the root or on the short allowed list.
TEST(HostileRoot, ACleanReadOpensNothingOutsideTheRootUnderStrace) {
  if (!have_strace()) GTEST_SKIP() << "strace is not installed";
  RootCase c;
  std::set<std::string> pids;
  std::vector<std::string> paths = strace_opens(c, "clean", pids);
  ASSERT_GT(paths.size(), 100u) << "strace saw too few opens to judge";
  expect_inside_root(c, paths, pids);
}

// A root full of escaping links is refused before anything under it is
// opened by hwloc, and nothing outside it is opened on its behalf.
TEST(HostileRoot, NothingOpenedOutsideTheRootUnderStrace) {
  if (!have_strace()) GTEST_SKIP() << "strace is not installed";
  RootCase c;
  HostileDir::make_link(c.at("proc/cpuinfo"), c.dir.canary_path());
  HostileDir::make_link(c.at("etc/hostname"), "/etc/shadow");
  std::string config = c.gpu_bridge_config();
  HostileDir::make_link(config, c.escaping_target(config));
  std::set<std::string> pids;
  std::vector<std::string> paths = strace_opens(c, "hostile", pids);
  ASSERT_FALSE(paths.empty()) << "strace saw no open at all";
  expect_inside_root(c, paths, pids);
  for (const auto& p : paths) EXPECT_EQ(p.find("shadow"), std::string::npos) << p;
}

}  // namespace
}  // namespace gdrcheck::testing
