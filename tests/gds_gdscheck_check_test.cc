// gds.gdscheck: real gdscheck -p outputs (tests/data/gdscheck) against host
// states built here to agree or differ with them, and the evidence-missing
// cases.
#include <gtest/gtest.h>

#include <algorithm>

#include "checks/gds_checks.h"
#include "node_checks.h"
#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::contains;
using testing::find_subject;
using testing::read_test_data;

GdscheckReport gdscheck(const std::string& name) {
  return parse_gdscheck(read_test_data("gdscheck/" + name));
}

const char* const kSynthetic113 = "synthetic-gds-1.13-layout-p2pdma-iommu-on.txt";
const char* const kTokens116 = "synthetic-gds-1.16-route-tokens.txt";
const char* const kNoNvidiaFs = "aikitoria-15-gds-1.16.0-compat-tokens-cut.txt";
const char* const kBetaFailed = "onizuka-beta-0.9.1.5-k1200-failed.txt";
const char* const kFlattened = "gds-nvidia-fs-8-markdown-flattened-cut.txt";

GdsState nvfs_loaded(const std::string& version, std::vector<NvidiaFsBackend> backends,
                     std::vector<std::string> bridges = {}) {
  GdsState g;
  g.nvidia_fs_loaded = true;
  g.module_version = {"/sys/module/nvidia_fs/version", version, ""};
  g.proc_version = {"/proc/driver/nvidia-fs/version", "version: " + version.substr(0, version.rfind('.')), ""};
  g.backends = std::move(backends);
  g.acs_bridges = std::move(bridges);
  return g;
}

GdsState not_loaded() {
  GdsState g;
  g.module_version = {"/sys/module/nvidia_fs/version", std::nullopt, "not found"};
  g.backends_problem = "not found";
  return g;
}

std::optional<CufileConfig> cufile_config_of(GdsState& g, const std::string& path, const std::string& json) {
  g.cufile_path = path;
  g.cufile_text = json;
  return parse_cufile_config(json, path);
}

// The state the synthetic GDS 1.13 output describes: nvidia-fs 2.22 with
// nvme and lnet, one ACS bridge, P2PDMA and compat mode on.
GdsState state_113(std::optional<CufileConfig>& c) {
  GdsState g = nvfs_loaded("2.22.3", {{"nvme", "2.22.3"}, {"lnet", "2.22.3"}}, {"0000:02:00.0"});
  c = cufile_config_of(
      g, "/etc/cufile.json",
      R"({"properties": {"use_pci_p2pdma": true, "allow_compat_mode": true, "force_compat_mode": false}})");
  return g;
}

std::string all_evidence(const Finding& f) {
  std::string out;
  for (const auto& e : f.evidence) out += e + "\n";
  return out;
}

TEST(GdsGdscheckCheck, EverythingAgreesIsOneOkFinding) {
  std::optional<CufileConfig> c;
  GdsState g = state_113(c);
  auto f = check_gds_gdscheck(g, c, gdscheck(kSynthetic113), "gdscheck.txt");
  ASSERT_EQ(f.size(), 1u) << f[1].summary;
  EXPECT_EQ(f[0].check, "gds.gdscheck");
  EXPECT_EQ(f[0].status, Status::Ok);
  std::string ev = all_evidence(f[0]);
  EXPECT_TRUE(contains(ev, "nvidia-fs 2.22: gdscheck.txt: \"nvidia_fs version: 2.22\"")) << ev;
  EXPECT_TRUE(contains(ev, "/sys/module/nvidia_fs/version = 2.22.3")) << ev;
  EXPECT_TRUE(contains(ev, "allow_compat_mode true: gdscheck.txt: \"properties.use_compat_mode : true\"")) << ev;
  EXPECT_TRUE(contains(ev, "use_pci_p2pdma true")) << ev;
  EXPECT_TRUE(contains(ev, "force_compat_mode false")) << ev;
  EXPECT_TRUE(contains(ev,
                       "nvfs route, registered with nvidia-fs (/proc/driver/nvidia-fs/modules): NVMe (nvme), DDN "
                       "EXAScaler (lnet)"))
      << ev;
  EXPECT_TRUE(contains(ev, "NVMeOF (nvme_rdma)")) << ev;
  EXPECT_TRUE(contains(ev, "bridges with ACS enabled: 0000:02:00.0")) << ev;
  EXPECT_TRUE(contains(ev, "cuFile configuration /etc/cufile.json")) << ev;
  // What only one side states, or no nvidia-fs module stands for, is said.
  EXPECT_TRUE(contains(ev,
                       "not compared, transports with a user-space RDMA route (IBM Spectrum Scale (mmfslinux), "
                       "WekaFS (wekafsio))"))
      << ev;
  EXPECT_TRUE(contains(ev, "not compared, transports nvidia-fs does not carry (NVMe P2PDMA, Userspace RDMA)")) << ev;
}

TEST(GdsGdscheckCheck, AnotherNvidiaFsVersionIsAWarningNamingBoth) {
  std::optional<CufileConfig> c;
  GdsState g = state_113(c);
  g.module_version.value = "2.26.6";
  auto f = check_gds_gdscheck(g, c, gdscheck(kSynthetic113), "gdscheck.txt");
  const Finding* v = find_subject(f, "nvidia-fs version");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->status, Status::Warning);
  EXPECT_TRUE(contains(v->summary, "gdscheck saw nvidia-fs 2.22, the files show 2.26.6")) << v->summary;
  EXPECT_TRUE(contains(v->summary, "reloaded after gdscheck ran, or gdscheck ran on another machine")) << v->summary;
  EXPECT_TRUE(contains(all_evidence(*v), "/sys/module/nvidia_fs/version = 2.26.6"));
  EXPECT_FALSE(v->fix.empty());
  // The rest still agrees.
  EXPECT_EQ(find_subject(f, "gdscheck")->status, Status::Ok);
  EXPECT_TRUE(contains(find_subject(f, "gdscheck")->summary, "1 differ"));
}

TEST(GdsGdscheckCheck, OnlyMajorMinorIsCompared) {
  std::optional<CufileConfig> c;
  GdsState g = state_113(c);
  g.module_version.value = "2.22.99";
  EXPECT_EQ(find_subject(check_gds_gdscheck(g, c, gdscheck(kSynthetic113), "x"), "nvidia-fs version"), nullptr);
  // /proc's "version: 2.22" stands in when /sys/module/nvidia_fs/version is unreadable.
  g.module_version.value.reset();
  auto f = check_gds_gdscheck(g, c, gdscheck(kSynthetic113), "x");
  EXPECT_TRUE(contains(all_evidence(f[0]), "/proc/driver/nvidia-fs/version = version: 2.22")) << all_evidence(f[0]);
}

TEST(GdsGdscheckCheck, TransportsThatDisagreeWithTheRegisteredDriversAreWarnings) {
  std::optional<CufileConfig> c;
  GdsState g = state_113(c);
  g.backends = std::vector<NvidiaFsBackend>{{"nvme_rdma", "2.22.3"}};
  auto f = check_gds_gdscheck(g, c, gdscheck(kSynthetic113), "gdscheck.txt");
  const Finding* nvme = find_subject(f, "NVMe");
  ASSERT_NE(nvme, nullptr);
  EXPECT_EQ(nvme->status, Status::Warning);
  EXPECT_TRUE(contains(nvme->summary, "gdscheck reported the nvfs route for NVMe, but nvme is not registered"))
      << nvme->summary;
  EXPECT_TRUE(contains(all_evidence(*nvme), "gdscheck.txt: \"NVMe : Supported\""));
  EXPECT_TRUE(contains(all_evidence(*nvme), "/proc/driver/nvidia-fs/modules: no nvme"));
  ASSERT_NE(find_subject(f, "DDN EXAScaler"), nullptr);
  const Finding* nvmeof = find_subject(f, "NVMeOF");
  ASSERT_NE(nvmeof, nullptr);
  EXPECT_TRUE(contains(nvmeof->summary, "no nvfs route for NVMeOF (Unsupported), but nvme_rdma is registered"))
      << nvmeof->summary;
  EXPECT_TRUE(contains(all_evidence(*nvmeof), "/proc/driver/nvidia-fs/modules: nvme_rdma: 2.22.3"));
  for (const auto& x : f) EXPECT_NE(x.status, Status::Critical) << x.summary;
}

TEST(GdsGdscheckCheck, CompatModeFromAnotherFileIsAWarning) {
  std::optional<CufileConfig> c;
  GdsState g = state_113(c);
  c = cufile_config_of(g, "/etc/cufile.json",
                       R"({"properties": {"allow_compat_mode": false, "use_pci_p2pdma": true}})");
  auto f = check_gds_gdscheck(g, c, gdscheck(kSynthetic113), "gdscheck.txt");
  const Finding* compat = find_subject(f, "allow_compat_mode");
  ASSERT_NE(compat, nullptr);
  EXPECT_EQ(compat->status, Status::Warning);
  EXPECT_TRUE(contains(compat->summary, "gdscheck ran with allow_compat_mode true, but /etc/cufile.json sets it false"))
      << compat->summary;
  EXPECT_TRUE(contains(compat->summary, "CUFILE_ENV_PATH_JSON")) << compat->summary;
  EXPECT_TRUE(contains(all_evidence(*compat), "gdscheck.txt: \"properties.use_compat_mode : true\""));
  EXPECT_TRUE(contains(all_evidence(*compat), "/etc/cufile.json: properties.allow_compat_mode = false"));
  // force_compat_mode is not in this file: gdscheck alone states it.
  EXPECT_TRUE(
      contains(all_evidence(*find_subject(f, "gdscheck")),
               "not compared, force_compat_mode: only gdscheck states it (gdscheck.txt: \"properties.force_compat_mode "
               ": false\"); /etc/cufile.json does not set it"));
}

TEST(GdsGdscheckCheck, AnotherConfigurationFileIsAWarning) {
  std::optional<CufileConfig> c;
  GdsState g = state_113(c);
  const std::string same = *g.cufile_text;
  c = cufile_config_of(g, "/opt/job/cufile.json", same);
  auto f = check_gds_gdscheck(g, c, gdscheck(kSynthetic113), "gdscheck.txt");
  const Finding* path = find_subject(f, "cufile.json");
  ASSERT_NE(path, nullptr);
  EXPECT_EQ(path->status, Status::Warning);
  EXPECT_TRUE(contains(path->summary, "from /etc/cufile.json, the files' is /opt/job/cufile.json")) << path->summary;
  EXPECT_TRUE(contains(path->fix, "--env CUFILE_ENV_PATH_JSON=/etc/cufile.json")) << path->fix;
}

TEST(GdsGdscheckCheck, AcsSwitchesAgainstNvidiaFsBridges) {
  std::optional<CufileConfig> c;
  GdsState g = state_113(c);
  g.acs_bridges = std::vector<std::string>{};
  auto f = check_gds_gdscheck(g, c, gdscheck(kSynthetic113), "gdscheck.txt");
  const Finding* acs = find_subject(f, "acs");
  ASSERT_NE(acs, nullptr);
  EXPECT_EQ(acs->status, Status::Warning);
  EXPECT_TRUE(contains(acs->summary, "gdscheck saw ACS enabled on 0000:02:00.0, nvidia-fs lists none")) << acs->summary;
  EXPECT_TRUE(contains(all_evidence(*acs), "\"Found ACS enabled for switch 0000:02:00.0\""));
  // A complete 1.x output without an ACS line says none.
  std::optional<CufileConfig> c2;
  GdsState g2 =
      nvfs_loaded("2.28.1", {{"nvme", "2.28.1"}, {"nvme_rdma", "2.28.1"}, {"rpcrdma", "2.28.1"}}, {"02:00.0"});
  auto f2 = check_gds_gdscheck(g2, c2, gdscheck(kTokens116), "gdscheck.txt");
  ASSERT_NE(find_subject(f2, "acs"), nullptr);
  EXPECT_TRUE(
      contains(find_subject(f2, "acs")->summary, "gdscheck saw ACS enabled on none, nvidia-fs lists 0000:02:00.0"));
}

TEST(GdsGdscheckCheck, RouteTokensOfGds116) {
  GdsState g = nvfs_loaded("2.28.1", {{"nvme", "2.28.1"}, {"nvme_rdma", "2.28.1"}, {"rpcrdma", "2.28.1"}});
  auto c = cufile_config_of(g, "/etc/cufile.json",
                            R"({"properties": {"use_pci_p2pdma": true, "allow_compat_mode": false}})");
  auto f = check_gds_gdscheck(g, c, gdscheck(kTokens116), "gdscheck.txt");
  ASSERT_EQ(f.size(), 1u) << f[1].summary;
  std::string ev = all_evidence(f[0]);
  EXPECT_TRUE(contains(ev,
                       "nvfs route, registered with nvidia-fs (/proc/driver/nvidia-fs/modules): NVMe (nvme), NVMeOF "
                       "(nvme_rdma), NFS (rpcrdma)"))
      << ev;
  EXPECT_TRUE(contains(ev, "no nvfs route, not registered (/proc/driver/nvidia-fs/modules): SCSI (scsi_mod)")) << ev;
  EXPECT_TRUE(contains(ev, "allow_compat_mode false")) << ev;
  // "nvidia_peermem, compat" and "dmabuf" are user-space routes: not compared.
  EXPECT_TRUE(contains(ev, "WekaFS (wekafsio), IBM Spectrum Scale (mmfslinux)")) << ev;
  // "NFS : nvfs, compat" without rpcrdma registered differs.
  g.backends = std::vector<NvidiaFsBackend>{{"nvme", "2.28.1"}, {"nvme_rdma", "2.28.1"}, {"wekafsio", "1"}};
  f = check_gds_gdscheck(g, c, gdscheck(kTokens116), "gdscheck.txt");
  ASSERT_NE(find_subject(f, "NFS"), nullptr);
  EXPECT_TRUE(contains(all_evidence(*find_subject(f, "NFS")), "gdscheck.txt: \"NFS : nvfs, compat\""));
  EXPECT_EQ(find_subject(f, "WekaFS"), nullptr) << "nvidia-fs lists wekafsio whether or not it is used";
}

TEST(GdsGdscheckCheck, NoNvidiaFsOnEitherSideAgrees) {
  auto f = check_gds_gdscheck(not_loaded(), std::nullopt, gdscheck(kNoNvidiaFs), "gdscheck.txt");
  ASSERT_EQ(f.size(), 1u) << f[1].summary;
  EXPECT_EQ(f[0].status, Status::Ok);
  std::string ev = all_evidence(f[0]);
  EXPECT_TRUE(contains(ev,
                       "nvidia-fs not loaded: gdscheck.txt: no \"nvidia_fs version\" after \"GDS release version: "
                       "1.16.0.49\"; /sys/module/nvidia_fs: not found"))
      << ev;
  EXPECT_TRUE(contains(ev, "no nvfs route, not registered (nvidia-fs not loaded): NVMe (nvme), NVMeOF (nvme_rdma)"))
      << ev;
  EXPECT_TRUE(contains(ev, "only gdscheck states them; the files hold no cuFile configuration")) << ev;
}

TEST(GdsGdscheckCheck, NvidiaFsLoadedOnOneSideOnlyIsOneWarning) {
  GdsState g = nvfs_loaded("2.26.6", {{"nvme", "2.26.6"}});
  auto f = check_gds_gdscheck(g, std::nullopt, gdscheck(kNoNvidiaFs), "gdscheck.txt");
  const Finding* fs = find_subject(f, "nvidia-fs");
  ASSERT_NE(fs, nullptr);
  EXPECT_EQ(fs->status, Status::Warning);
  EXPECT_TRUE(contains(fs->summary, "gdscheck saw no nvidia-fs, but the files show it loaded")) << fs->summary;
  EXPECT_EQ(find_subject(f, "NVMe"), nullptr) << "the transports follow from it: said once";
  // The other way round.
  auto f2 = check_gds_gdscheck(not_loaded(), std::nullopt, gdscheck(kSynthetic113), "gdscheck.txt");
  ASSERT_NE(find_subject(f2, "nvidia-fs"), nullptr);
  EXPECT_TRUE(contains(find_subject(f2, "nvidia-fs")->summary,
                       "gdscheck saw nvidia-fs 2.22, but the files show it not loaded"));
}

TEST(GdsGdscheckCheck, ErrorsGdscheckReportedAreAWarning) {
  GdsState g = nvfs_loaded("2.4.1", {{"nvme", "2.4.1"}});
  auto f = check_gds_gdscheck(g, std::nullopt, gdscheck(kBetaFailed), "k1200.txt");
  const Finding* e = find_subject(f, "errors");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status, Status::Warning);
  std::string ev = all_evidence(*e);
  EXPECT_TRUE(contains(ev, "k1200.txt: \"cufile initialization failed\"")) << ev;
  EXPECT_TRUE(contains(ev, "k1200.txt: \"Platform verification failed\"")) << ev;
  EXPECT_TRUE(contains(ev, "GPU 0 Quadro K1200 does not have supported architecture")) << ev;
  // The beta's upper-case rows still compare.
  const Finding* agreed = find_subject(f, "gdscheck");
  ASSERT_NE(agreed, nullptr);
  EXPECT_TRUE(contains(all_evidence(*agreed), "NVMe (nvme)"));
  EXPECT_TRUE(contains(all_evidence(*agreed), "LUSTRE (lnet)"));
}

TEST(GdsGdscheckCheck, NothingInCommonIsUnknown) {
  // A paste without its header (no versions) against a root that captured
  // neither /sys/module nor /proc/driver, with no configuration.
  GdsState g;
  g.uncaptured = {"/proc/driver", "/sys/module"};
  auto f = check_gds_gdscheck(g, std::nullopt, gdscheck(kFlattened), "flat.txt");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].status, Status::Unknown);
  EXPECT_TRUE(contains(f[0].summary, "nothing to compare")) << f[0].summary;
  std::string ev = all_evidence(f[0]);
  EXPECT_TRUE(contains(ev, "not compared, nvidia-fs: flat.txt has no \"GDS release version\"")) << ev;
  EXPECT_TRUE(contains(ev, "not compared, transports: /sys/module: not captured")) << ev;
  EXPECT_FALSE(f[0].fix.empty());
}

TEST(GdsGdscheckCheck, UnreadableModulesListIsNotCompared) {
  GdsState g = nvfs_loaded("2.22.3", {});
  g.backends.reset();
  g.backends_problem = "permission denied";
  auto f = check_gds_gdscheck(g, std::nullopt, gdscheck(kSynthetic113), "gdscheck.txt");
  EXPECT_EQ(find_subject(f, "NVMe"), nullptr);
  EXPECT_TRUE(contains(all_evidence(*find_subject(f, "gdscheck")),
                       "not compared, transports: /proc/driver/nvidia-fs/modules: permission denied"));
}

TEST(GdsGdscheckCheck, HostileTextIsEscaped) {
  std::string text =
      " GDS release version: 1.13.1.3\n nvidia_fs version:  2.22\x1b]0;x\x07 libcufile version: 2.12\n"
      " NVMe\x1b[31m : Supported\n NVMeOF : Unsupported\n SCSI : Unsupported\n IOMMU: disabled\n"
      " Platform verification succeeded\n";
  GdsState g = nvfs_loaded("2.26.6\x1b[1m", {{"nvme\x1b[5m", "1\x9b"}, {"scsi_mod", "\x1b[7m"}});
  g.acs_bridges = std::vector<std::string>{"\x1b]2;title\x07"};
  auto f = check_gds_gdscheck(g, std::nullopt, parse_gdscheck(text), "bad\x1b[2J.txt");
  for (const auto& x : f) {
    EXPECT_EQ(x.summary.find('\x1b'), std::string::npos) << x.summary;
    for (const auto& e : x.evidence) {
      EXPECT_EQ(e.find('\x1b'), std::string::npos) << e;
      EXPECT_EQ(e.find('\x07'), std::string::npos) << e;
    }
    EXPECT_EQ(x.subject.find('\x1b'), std::string::npos) << x.subject;
    EXPECT_NE(x.status, Status::Critical);
  }
}

TEST(GdsGdscheckCheck, NoRealOutputIsEverCritical) {
  const char* files[] = {"aikitoria-15-gds-1.16.0-compat-tokens-cut.txt",
                         "gds-nvidia-fs-75-gds-1.14-h200-cut.txt",
                         "gds-nvidia-fs-77-gds-1.16.1-trace-env-cut.txt",
                         kFlattened,
                         kBetaFailed,
                         "onizuka-beta-0.9.1.5-p400.txt",
                         "onizuka-gds-1.0.0.82-p1000.txt",
                         kSynthetic113,
                         kTokens116};
  for (const char* name : files) {
    for (GdsState g : {not_loaded(), nvfs_loaded("2.7.2", {{"nvme", "2.7.2"}}), nvfs_loaded("2.27.1", {})}) {
      auto c = cufile_config_of(g, "/etc/cufile.json", R"({"properties": {"allow_compat_mode": false}})");
      for (const auto& x : check_gds_gdscheck(g, c, gdscheck(name), name)) {
        EXPECT_NE(x.status, Status::Critical) << name << ": " << x.summary;
        EXPECT_EQ(x.check, "gds.gdscheck");
      }
    }
  }
}

}  // namespace
}  // namespace gdrcheck
