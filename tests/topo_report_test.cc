// `gdrcheck topo` end to end: text and JSON for each kind of source, and
// clear errors for bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "recorded_fixtures.h"
#include "report/terminal_text.h"
#include "report/topo_json.h"
#include "report/topo_text.h"
#include "run_binary.h"
#include "topology/hwloc_source.h"
#include "topology/path_matrix.h"
#include "topology/smi_text_source.h"

namespace gdrcheck {
namespace {

using nlohmann::json;
using testing::run_gdrcheck;
using testing::test_data;

const std::string kXe8640Xml = "recorded/flux/ipa20-dell-xe8640-4xH100.xml";

TEST(TopoText, MatrixLegendAndClosestNics) {
  Topology t = read_hwloc_xml(test_data(kXe8640Xml));
  std::string text = render_topo_text(t, compute_paths(t));
  EXPECT_NE(text.find("GPU0  "), std::string::npos);
  EXPECT_NE(text.find("NIC Legend:"), std::string::npos);
  EXPECT_NE(text.find("NIC2: mlx5_2 (0000:5e:00.0)"), std::string::npos);
  EXPECT_NE(text.find("PIX  = Connection traversing at most a single PCIe bridge"), std::string::npos);
  // GPU0 (4e:00.0) shares its switch with both ports of the ConnectX-6.
  EXPECT_NE(text.find("GPU0  NIC0 mlx5_0, NIC1 mlx5_1  PIX; NCCL PIX (GPUDirect RDMA by default)"), std::string::npos)
      << text;
  // GPU3 has no NIC on its NUMA node.
  EXPECT_NE(text.find("(NCCL stages through host memory by default)"), std::string::npos);
  EXPECT_EQ(text.find("\033["), std::string::npos);  // no colour unless asked
}

TEST(TopoText, SaysPlainlyWhenThereIsNoGpu) {
  Topology t = read_sysfs_topology(Root(testing::qib_root()));
  std::string text = render_topo_text(t, compute_paths(t));
  EXPECT_NE(text.find("No NVIDIA GPU found"), std::string::npos);
}

TEST(TopoJson, SchemaShape) {
  Topology t = read_hwloc_xml(test_data(kXe8640Xml));
  json j = topo_json(t, compute_paths(t));
  EXPECT_EQ(j["schema"], "gdrcheck.topo/1");
  EXPECT_EQ(j["source"]["kind"], "hwloc-xml");
  ASSERT_EQ(j["gpus"].size(), 4u);
  EXPECT_EQ(j["gpus"][0]["id"], "GPU0");
  EXPECT_EQ(j["gpus"][0]["bdf"], "0000:4e:00.0");
  EXPECT_EQ(j["gpus"][0]["numa_node"], 3);
  EXPECT_EQ(j["nics"][0]["name"], "mlx5_0");
  EXPECT_EQ(j["matrix"]["GPU0"]["NIC0"], "PIX");
  EXPECT_EQ(j["matrix"]["GPU0"]["GPU0"], "X");
  EXPECT_EQ(j["nccl_matrix"]["GPU0"]["NIC0"], "PIX");
  EXPECT_EQ(j["cpu_affinity"]["GPU0"], "42-55,154-167");
  EXPECT_EQ(j["numa_affinity"]["GPU0"], "3");
}

TEST(TopoCli, HwlocXmlFile) {
  auto r = run_gdrcheck({"topo", test_data(kXe8640Xml)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Topology from hwloc XML"), std::string::npos);
}

TEST(TopoCli, RecordedRootJson) {
  auto r = run_gdrcheck({"topo", "--root", testing::ve_root(), "--class", "0x0b40", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["source"]["kind"], "sysfs");
  EXPECT_EQ(j["gpus"].size(), 0u);
  EXPECT_EQ(j["devices"].size(), 8u);
  EXPECT_EQ(j["matrix"]["DEV0"]["NIC0"], "PIX");
  EXPECT_EQ(j["matrix"]["DEV0"]["NIC1"], "NODE");
  EXPECT_EQ(j["nics"][0]["rdma_device"], false);
}

TEST(TopoCli, StdinInput) {
  auto r = run_gdrcheck({"topo", "-", "--json"}, "not a topology at all\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("-: not a topology"), std::string::npos) << r.err;
}

TEST(TopoCli, BadInputNamesTheFileAndExits3) {
  char tmpl[] = "/tmp/gdrcheck-bad-XXXXXX";
  int fd = ::mkstemp(tmpl);
  const char binary[] = {'\x7f', 'E', 'L', 'F', '\0', '\1', '\2', '\0'};
  ASSERT_EQ(::write(fd, binary, sizeof binary), static_cast<ssize_t>(sizeof binary));
  ::close(fd);
  auto r = run_gdrcheck({"topo", tmpl});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(std::string(tmpl) + ": binary data"), std::string::npos) << r.err;
  ::unlink(tmpl);
}

// A file name that holds terminal controls is named escaped, on one line.
TEST(TopoCli, HostileFileNameIsEscapedInTheError) {
  auto r = run_gdrcheck({"topo", "/nonexistent/a\x1b]0;pwned\x07\x1b[2J\r\xe2\x80\xae\nb.xml"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/a\\x1b]0;pwned\\x07\\x1b[2J\\r\\u202e\\nb.xml"), std::string::npos) << r.err;
}

// Colour on, hostile names in a pasted matrix: only the renderer's own
// colour sequences reach the terminal.
TEST(TopoText, HostileSmiTextKeepsOnlyOwnColours) {
  Topology t = read_smi_text(
      "\tGPU0\tNIC0\x1b[2J\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tPIX\t0-7\x1b]0;t\x07\t0\n"
      "NIC0\x1b[2J\tPIX\t X \n"
      "\nNIC Legend:\n\n  NIC0: mlx5_0\xe2\x80\xae\x9b\n",
      "pasted\r.txt");
  std::string text = render_topo_text(t, compute_paths(t), TextStyle{true});
  EXPECT_NE(text.find("\033[32mPIX\033[0m"), std::string::npos) << text;
  std::string stripped = text;
  for (std::string_view own : sgr::kAll)
    for (auto at = stripped.find(own); at != std::string::npos; at = stripped.find(own)) stripped.erase(at, own.size());
  EXPECT_EQ(stripped.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(stripped.find('\r'), std::string::npos) << text;
  EXPECT_EQ(stripped.find("\xe2\x80\xae"), std::string::npos) << text;
}

TEST(TopoCli, TruncatedXmlIsAClearError) {
  std::string path = "/tmp/gdrcheck-trunc.xml";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n  <object type=\"Machine\"", f);
    std::fclose(f);
  }
  auto r = run_gdrcheck({"topo", path});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(path + ":"), std::string::npos) << r.err;
  std::remove(path.c_str());
}

TEST(TopoCli, MissingFileAndDirectory) {
  auto r = run_gdrcheck({"topo", "/nonexistent/topo.xml"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("/nonexistent/topo.xml: no such file"), std::string::npos);
  auto d = run_gdrcheck({"topo", "/tmp"});
  EXPECT_EQ(d.exit_code, 3);
  EXPECT_NE(d.err.find("use --root"), std::string::npos);
  auto root = run_gdrcheck({"topo", "--root", "/nonexistent-root"});
  EXPECT_EQ(root.exit_code, 3);
}

TEST(TopoCli, UsageErrorsExit64) {
  EXPECT_EQ(run_gdrcheck({"topo", "--bogus"}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"topo", "--device", "zz", test_data(kXe8640Xml)}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"topo", "--kind", "yaml", test_data(kXe8640Xml)}).exit_code, 64);
  EXPECT_EQ(run_gdrcheck({"nosuchcommand"}).exit_code, 64);
}

}  // namespace
}  // namespace gdrcheck

namespace gdrcheck {
namespace {

// Pasted nvidia-smi text: codes exactly as printed, NIC legend names kept.
TEST(TopoCli, SmiTextJsonKeepsPrintedCodesAndLegendNames) {
  auto r = run_gdrcheck({"topo", "--json", test_data("smi/stelline-esc8000a-4x6000ada-legend.txt")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["source"]["kind"], "smi-text");
  ASSERT_EQ(j["nics"].size(), 4u);
  EXPECT_EQ(j["nics"][2]["id"], "NIC2");
  EXPECT_EQ(j["nics"][2]["name"], "mlx5_2");
  EXPECT_EQ(j["matrix"]["GPU0"]["GPU1"], "NODE");
  EXPECT_EQ(j["matrix"]["GPU2"]["NIC0"], "SYS");
  EXPECT_EQ(j["nccl_matrix"]["GPU0"]["NIC0"], "PHB");  // NODE is PHB for NCCL
  EXPECT_EQ(j["cpu_affinity"]["GPU2"], "32-63");
}

TEST(TopoCli, NcclXmlShowsBroadcomFlattening) {
  auto r = run_gdrcheck({"topo", test_data("recorded/oci-hpc/H100-topology.xml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU0-NIC0: nvidia-smi PXB, NCCL PIX"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NIC0: mlx5_0 (0000:0c:00.0) MT2910 Family [ConnectX-7]"), std::string::npos);
  auto old = run_gdrcheck({"topo", "--no-bcm-flatten", "--json", test_data("recorded/oci-hpc/H100-topology.xml")});
  EXPECT_EQ(json::parse(old.out)["nccl_matrix"]["GPU0"]["NIC0"], "PXB");
}

}  // namespace
}  // namespace gdrcheck
