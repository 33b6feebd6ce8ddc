// Tests for the pasted `nvidia-smi topo -m` reader. The real outputs in
// tests/data/smi were posted publicly (see PROVENANCE.md); each test checks
// facts read off that paste by eye, not just that it parses.
#include "topology/smi_text_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "topology/input_error.h"
#include "topology/path_class.h"

#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::has_note;

const std::string kDir = std::string(GDRCHECK_TEST_DATA) + "/smi/";

std::string smi_text(const std::string& name) {
  return testing::read_test_data("smi/" + name);
}

Topology load_smi(const std::string& name) {
  return read_smi_text(smi_text(name), name);
}

// The printed code for a pair, "<none>" when absent.
std::string cell(const Topology& t, const std::string& row, const std::string& col) {
  auto it = t.printed_matrix.find({row, col});
  return it == t.printed_matrix.end() ? "<none>" : it->second;
}

std::vector<std::string> names_of(const Topology& t, DeviceRole role) {
  std::vector<std::string> out;
  for (const Endpoint* e : t.with_role(role)) out.push_back(e->name);
  return out;
}

std::string attr(const Endpoint& e, const std::string& key) {
  auto it = e.attributes.find(key);
  return it == e.attributes.end() ? "<none>" : it->second;
}

// What a terminal does to nvidia-smi's tabs: spaces up to the next stop of 8.
std::string expand_tabs(const std::string& s) {
  std::string out;
  std::size_t col = 0;
  for (char c : s) {
    if (c == '\n') {
      out += c;
      col = 0;
    } else if (c == '\t') {
      do out += ' ';
      while (++col % 8 != 0);
    } else {
      out += c;
      ++col;
    }
  }
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

// The InputError thrown for `text`, with its message; fails when none is.
std::string smi_error(const std::string& text, const std::string& source = "paste.txt") {
  try {
    read_smi_text(text, source);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), source);
    EXPECT_EQ(std::string(e.what()).rfind(source + ": ", 0), 0u);
    return e.problem();
  }
  ADD_FAILURE() << "no InputError for: " << text.substr(0, 80);
  return "";
}

// ---------------------------------------------------------- real outputs

// What issue trackers and chat tools do to a paste: every run of spaces
// and tabs collapsed to one space, and the ESC of the header's colour turned
// into U+FFFD, leaving "\uFFFD[4m" stuck before GPU0. Every real matrix in
// tests/data/smi reads to the same cells, multi-word columns included.
TEST(SmiTextReal, CollapsedWhitespaceAndEscapeDebrisReadTheSame) {
  for (const char* name : {"deepep-60-8gpu-14nic-topo-mp.txt", "go-gpuallocator-17-8x4090-pcie.txt",
                           "kubernetes-53497-8gpu-mlx4.txt", "dask-cuda-1358-2gpu-10nic.txt"}) {
    std::string text = smi_text(name), mangled;
    bool blank = false;
    for (char c : text) {
      bool b = c == ' ' || c == '\t';
      if (!(b && blank)) mangled += b ? ' ' : c;
      blank = b;
    }
    auto gpu0 = mangled.find("GPU0");
    ASSERT_NE(gpu0, std::string::npos) << name;
    mangled.insert(gpu0, "\xEF\xBF\xBD[4m\xEF\xBF\xBD[1m");
    Topology clean = read_smi_text(text, name), pasted = read_smi_text(mangled, name);
    EXPECT_EQ(pasted.printed_matrix, clean.printed_matrix) << name;
    EXPECT_EQ(names_of(pasted, DeviceRole::Nic), names_of(clean, DeviceRole::Nic)) << name;
    ASSERT_EQ(pasted.endpoints.size(), clean.endpoints.size()) << name;
    for (std::size_t i = 0; i < clean.endpoints.size(); ++i)
      EXPECT_EQ(pasted.endpoints[i].attributes, clean.endpoints[i].attributes) << name << " " << clean.endpoints[i].id;
  }
}

TEST(SmiTextReal, GoGpuAllocator8x4090TabsNoLegend) {
  Topology t = load_smi("go-gpuallocator-17-8x4090-pcie.txt");
  EXPECT_EQ(t.kind, SourceKind::SmiText);
  EXPECT_EQ(t.source, "go-gpuallocator-17-8x4090-pcie.txt");
  EXPECT_EQ(t.tree, TreeStyle::None);
  EXPECT_TRUE(t.nodes.empty());
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  ASSERT_EQ(t.with_role(DeviceRole::Nic).size(), 2u);
  EXPECT_EQ(t.endpoints.size(), 10u);
  EXPECT_EQ(t.printed_matrix.size(), 100u);
  EXPECT_EQ(cell(t, "GPU0", "GPU0"), "X");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "SYS");
  EXPECT_EQ(cell(t, "GPU6", "NIC0"), "PHB");
  EXPECT_EQ(cell(t, "NIC1", "GPU6"), "PHB");
  EXPECT_EQ(cell(t, "NIC0", "NIC1"), "PIX");
  const Endpoint* gpu0 = t.find("GPU0");
  ASSERT_NE(gpu0, nullptr);
  EXPECT_EQ(gpu0->locality.cpus, "0-55,112-167");
  EXPECT_EQ(gpu0->locality.numa, 0);
  EXPECT_EQ(attr(*gpu0, "GPU NUMA ID"), "N/A");
  EXPECT_EQ(t.find("GPU4")->locality.cpus, "56-111,168-223");
  EXPECT_EQ(t.find("GPU4")->locality.numa, 1);
  // No legend was pasted: the NICs exist, named by their labels (their
  // RDMA names are unknown, and the note says why).
  EXPECT_EQ(t.find("NIC0")->name, "NIC0");
  EXPECT_EQ(t.find("NIC0")->locality.cpus, "");
  EXPECT_TRUE(has_note(t, "NIC Legend"));
}

TEST(SmiTextReal, Club3090TwoGpusWithP2pMatrixAfterLegend) {
  Topology t = load_smi("club3090-1229-2x5090-with-p2p.txt");
  EXPECT_EQ(t.endpoints.size(), 2u);
  EXPECT_TRUE(t.with_role(DeviceRole::Nic).empty());
  // The later `topo -p2p` matrix (GNS) must not overwrite the path codes.
  EXPECT_EQ(t.printed_matrix.size(), 4u);
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "PHB");
  EXPECT_EQ(cell(t, "GPU1", "GPU0"), "PHB");
  EXPECT_EQ(t.find("GPU1")->locality.cpus, "0-63");
  EXPECT_EQ(t.find("GPU1")->locality.numa, 0);
}

TEST(SmiTextReal, Club3090ReindentedPaste) {
  Topology t = load_smi("club3090-1125-2gpu-reindented.txt");
  EXPECT_EQ(t.endpoints.size(), 2u);
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "NODE");
  EXPECT_EQ(cell(t, "GPU1", "GPU1"), "X");
  EXPECT_EQ(t.find("GPU0")->locality.cpus, "0-15");
  EXPECT_EQ(t.find("GPU0")->locality.numa, 0);
  EXPECT_EQ(attr(*t.find("GPU0"), "GPU NUMA ID"), "N/A");
}

TEST(SmiTextReal, Vllm19607EmptyAffinityCellsInSpacedPaste) {
  Topology t = load_smi("vllm-19607-2gpu-nv12-8nic-empty-affinity.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 2u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 8u);
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "NV12");
  EXPECT_EQ(cell(t, "GPU0", "NIC6"), "PXB");
  EXPECT_EQ(cell(t, "GPU1", "NIC0"), "SYS");
  EXPECT_EQ(cell(t, "NIC6", "NIC7"), "PIX");
  EXPECT_EQ(cell(t, "NIC7", "NIC7"), "X");
  // CPU and NUMA affinity are blank in this paste; the lone N/A is the
  // GPU NUMA ID column, told by its position.
  const Endpoint* gpu0 = t.find("GPU0");
  EXPECT_EQ(gpu0->locality.cpus, "");
  EXPECT_EQ(gpu0->locality.numa, -1);
  EXPECT_EQ(attr(*gpu0, "CPU Affinity"), "<none>");
  EXPECT_EQ(attr(*gpu0, "NUMA Affinity"), "<none>");
  EXPECT_EQ(attr(*gpu0, "GPU NUMA ID"), "N/A");
}

TEST(SmiTextReal, Vllm13855RunTogetherColumnsAreSplit) {
  Topology t = load_smi("vllm-13855-dgx-nv18-glued-columns.txt");
  // Header "NIC8NIC9" lost its tab: still 12 NICs.
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 12u);
  EXPECT_NE(t.find("NIC9"), nullptr);
  EXPECT_EQ(cell(t, "GPU0", "GPU7"), "NV18");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "PXB");
  EXPECT_EQ(cell(t, "GPU1", "NIC3"), "PXB");
  // Rows GPU4-7 have "NODENODE" / "NODEPXB" cells.
  EXPECT_EQ(cell(t, "GPU4", "NIC6"), "PXB");
  EXPECT_EQ(cell(t, "GPU4", "NIC8"), "NODE");
  EXPECT_EQ(cell(t, "GPU4", "NIC9"), "NODE");
  EXPECT_EQ(cell(t, "GPU5", "NIC8"), "NODE");
  EXPECT_EQ(cell(t, "GPU5", "NIC9"), "PXB");
  EXPECT_EQ(cell(t, "GPU6", "NIC10"), "PXB");
  EXPECT_EQ(cell(t, "GPU7", "NIC11"), "PXB");
  EXPECT_EQ(t.find("GPU7")->locality.cpus, "56-111,168-223");
  EXPECT_EQ(t.find("GPU7")->locality.numa, 1);
  EXPECT_TRUE(has_note(t, "run together"));
  // The paste stops after GPU7: NIC rows are missing and said so.
  EXPECT_TRUE(has_note(t, "no matrix row for NIC0"));
}

TEST(SmiTextReal, StellineFourAdaGpusWithNicLegend) {
  Topology t = load_smi("stelline-esc8000a-4x6000ada-legend.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 4u);
  EXPECT_EQ(names_of(t, DeviceRole::Nic), (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
  EXPECT_EQ(t.find("NIC2")->name, "mlx5_2");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "NODE");
  EXPECT_EQ(cell(t, "GPU0", "NIC2"), "SYS");
  EXPECT_EQ(cell(t, "GPU3", "NIC3"), "NODE");
  EXPECT_EQ(cell(t, "NIC0", "NIC1"), "PIX");
  EXPECT_EQ(t.find("GPU0")->locality.cpus, "0-31");
  EXPECT_EQ(t.find("GPU2")->locality.cpus, "32-63");
  EXPECT_EQ(t.find("GPU2")->locality.numa, 1);
  EXPECT_FALSE(has_note(t, "legend"));
}

TEST(SmiTextReal, JohnsBlogEightPcieGpusNoNics) {
  Topology t = load_smi("johns-blog-8gpu-pcie-no-nic.txt");
  EXPECT_EQ(t.endpoints.size(), 8u);
  EXPECT_TRUE(t.with_role(DeviceRole::Nic).empty());
  EXPECT_EQ(t.printed_matrix.size(), 64u);
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "PIX");
  EXPECT_EQ(cell(t, "GPU0", "GPU2"), "NODE");
  EXPECT_EQ(cell(t, "GPU0", "GPU4"), "SYS");
  EXPECT_EQ(cell(t, "GPU6", "GPU7"), "PIX");
  EXPECT_EQ(t.find("GPU7")->locality.cpus, "32-63,96-127");
  EXPECT_EQ(t.find("GPU7")->locality.numa, 1);
  EXPECT_TRUE(t.notes.empty());
}

TEST(SmiTextReal, Kubernetes53497OldMlx4ColumnTrailingSpaces) {
  Topology t = load_smi("kubernetes-53497-8gpu-mlx4.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  ASSERT_EQ(t.with_role(DeviceRole::Nic).size(), 1u);
  const Endpoint* nic = t.find("NIC0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->name, "mlx4_0");
  EXPECT_EQ(nic->role, DeviceRole::Nic);
  // Keyed by the NIC id, never by the printed column label.
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "PHB");
  EXPECT_EQ(cell(t, "GPU0", "mlx4_0"), "<none>");
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "PIX");
  EXPECT_EQ(cell(t, "GPU2", "GPU3"), "PIX");
  EXPECT_EQ(cell(t, "GPU3", "GPU4"), "SYS");
  EXPECT_EQ(t.find("GPU0")->locality.cpus, "0-9,20-29");
  EXPECT_EQ(t.find("GPU0")->locality.numa, -1);  // no NUMA column yet
  EXPECT_TRUE(has_note(t, "NIC names taken from column headers"));
  EXPECT_TRUE(has_note(t, "no matrix row for GPU4"));
}

TEST(SmiTextReal, Nccl707OldMlx5ColumnsWithNumaAffinity) {
  Topology t = load_smi("nccl-707-a100-mlx5-columns.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 18u);
  // "mlx5_10 mlx5_11" are separated by one space only.
  EXPECT_EQ(t.find("NIC10")->name, "mlx5_10");
  EXPECT_EQ(t.find("NIC17")->name, "mlx5_17");
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "NV12");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "NODE");
  EXPECT_EQ(cell(t, "GPU0", "NIC4"), "PXB");
  EXPECT_EQ(cell(t, "GPU2", "NIC0"), "PXB");
  EXPECT_EQ(cell(t, "GPU0", "NIC17"), "SYS");
  EXPECT_EQ(t.find("GPU0")->locality.cpus, "0-47,96-143");
  EXPECT_EQ(t.find("GPU3")->locality.numa, 0);
  EXPECT_EQ(attr(*t.find("GPU0"), "GPU NUMA ID"), "<none>");
}

TEST(SmiTextReal, DeepEp60TopoMpHasNoNvlinkCodes) {
  Topology t = load_smi("deepep-60-8gpu-14nic-topo-mp.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 14u);
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "NODE");
  EXPECT_EQ(cell(t, "GPU0", "GPU4"), "SYS");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "PIX");
  EXPECT_EQ(cell(t, "GPU3", "NIC7"), "PIX");
  EXPECT_EQ(cell(t, "GPU0", "NIC13"), "SYS");
  for (const auto& [key, code] : t.printed_matrix) EXPECT_NE(code.rfind("NV", 0), 0u) << code;
  EXPECT_EQ(t.find("GPU2")->locality.cpus, "0-47,96-143");
  EXPECT_EQ(t.find("GPU2")->locality.numa, 0);
}

TEST(SmiTextReal, NcclTests78Dgx2SixteenGpus) {
  Topology t = load_smi("nccl-tests-78-dgx2-16gpu-mlx5.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 16u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 10u);
  EXPECT_EQ(t.find("GPU15")->role, DeviceRole::Gpu);
  EXPECT_EQ(cell(t, "GPU0", "GPU15"), "NV6");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "PIX");
  EXPECT_EQ(cell(t, "GPU0", "NIC1"), "PXB");
  EXPECT_EQ(cell(t, "GPU2", "NIC1"), "PIX");
  EXPECT_EQ(cell(t, "GPU3", "NIC4"), "SYS");
  EXPECT_EQ(t.find("NIC9")->name, "mlx5_9");
  EXPECT_EQ(t.find("GPU1")->locality.cpus, "0-23,48-71");
  EXPECT_EQ(attr(*t.find("GPU1"), "NUMA Affinity"), "<none>");
}

TEST(SmiTextReal, DaskCuda1358NicRowsWithoutAffinity) {
  Topology t = load_smi("dask-cuda-1358-2gpu-10nic.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 2u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 10u);
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "NV12");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "PXB");
  EXPECT_EQ(cell(t, "GPU1", "NIC2"), "SYS");
  EXPECT_EQ(cell(t, "NIC0", "NIC1"), "PXB");
  EXPECT_EQ(cell(t, "NIC2", "NIC3"), "PXB");
  EXPECT_EQ(t.find("GPU0")->locality.numa, 3);
  EXPECT_EQ(t.find("GPU0")->locality.cpus, "48-63,176-191");
  EXPECT_TRUE(t.find("NIC0")->attributes.empty());
}

TEST(SmiTextReal, Nccl2157HeaderWithoutLeadingIndent) {
  Topology t = load_smi("nccl-2157-8gpu-nv12-no-indent.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 18u);
  EXPECT_EQ(cell(t, "GPU0", "NIC5"), "PXB");
  EXPECT_EQ(cell(t, "GPU0", "NIC12"), "SYS");
  EXPECT_EQ(cell(t, "GPU2", "NIC1"), "PXB");
  EXPECT_EQ(cell(t, "GPU3", "NIC17"), "SYS");
  EXPECT_EQ(t.find("GPU0")->locality.numa, 3);
  EXPECT_EQ(t.find("GPU2")->locality.numa, 1);
  EXPECT_EQ(t.find("GPU2")->locality.cpus, "16-31,144-159");
}

TEST(SmiTextReal, Nccl933Nv8NineNics) {
  Topology t = load_smi("nccl-933-nv8-9nic.txt");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 8u);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 9u);
  EXPECT_EQ(cell(t, "GPU0", "GPU7"), "NV8");
  EXPECT_EQ(cell(t, "GPU0", "NIC2"), "PIX");
  EXPECT_EQ(cell(t, "GPU4", "NIC1"), "PIX");
  EXPECT_EQ(cell(t, "GPU6", "NIC5"), "PIX");
  EXPECT_EQ(cell(t, "GPU3", "NIC8"), "PIX");
  EXPECT_EQ(t.find("GPU6")->locality.cpus, "48-95,144-191");
  EXPECT_EQ(t.find("GPU6")->locality.numa, 1);
  EXPECT_EQ(cell(t, "GPU7", "GPU0"), "<none>");  // GPU7's row was not pasted
}

// ------------------------------------------------------- synthetic files

TEST(SmiTextSynthetic, AnsiUnderlineAndCrlf) {
  Topology t = load_smi("synthetic-ansi-crlf-2gpu-2nic.txt");
  EXPECT_EQ(names_of(t, DeviceRole::Nic), (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "NV4");
  EXPECT_EQ(cell(t, "GPU1", "NIC1"), "PIX");
  EXPECT_EQ(t.find("GPU1")->locality.cpus, "16-31,48-63");
  EXPECT_EQ(attr(*t.find("GPU1"), "GPU NUMA ID"), "N/A");
  for (const auto& [key, code] : t.printed_matrix) EXPECT_EQ(code.find('\r'), std::string::npos);
}

TEST(SmiTextSynthetic, OldDriverSocLegend) {
  Topology t = load_smi("synthetic-old-driver-soc-mlx5.txt");
  EXPECT_EQ(t.find("NIC0")->name, "mlx5_0");
  EXPECT_EQ(cell(t, "GPU0", "GPU2"), "SOC");
  EXPECT_EQ(cell(t, "NIC0", "GPU0"), "PHB");
  EXPECT_EQ(parse_smi_code(cell(t, "GPU0", "GPU2")).path, SmiPath::SYS);
  EXPECT_TRUE(has_note(t, "SOC"));
}

TEST(SmiTextSynthetic, NumaRangeIsKeptRawOnly) {
  Topology t = load_smi("synthetic-1gpu-1nic-numa-range.txt");
  const Endpoint* gpu = t.find("GPU0");
  EXPECT_EQ(gpu->locality.numa, -1);
  EXPECT_EQ(attr(*gpu, "NUMA Affinity"), "0-1");
  EXPECT_EQ(gpu->locality.cpus, "0-63");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "PHB");
}

// ------------------------------------------------------ messy variations

// A terminal copy of tab output: runs of spaces, empty cells gone.
TEST(SmiTextMessy, TabsExpandedToSpacesGiveTheSameModel) {
  for (const char* name : {"go-gpuallocator-17-8x4090-pcie.txt", "synthetic-ansi-crlf-2gpu-2nic.txt",
                           "synthetic-1gpu-1nic-numa-range.txt"}) {
    std::string text = smi_text(name);
    Topology tabs = read_smi_text(text, name);
    Topology spaces = read_smi_text(expand_tabs(replace_all(text, "\r", "")), name);
    EXPECT_EQ(tabs.printed_matrix, spaces.printed_matrix) << name;
    ASSERT_EQ(tabs.endpoints.size(), spaces.endpoints.size()) << name;
    for (std::size_t i = 0; i < tabs.endpoints.size(); ++i) {
      EXPECT_EQ(tabs.endpoints[i].attributes, spaces.endpoints[i].attributes) << name << " " << tabs.endpoints[i].id;
      EXPECT_EQ(tabs.endpoints[i].name, spaces.endpoints[i].name) << name;
    }
  }
}

TEST(SmiTextMessy, EmptyAffinityCellsInTabOutput) {
  std::string text =
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV12\tPXB\t\t\t\tN/A\n"
      "GPU1\tNV12\t X \tPXB\t\t\t\tN/A\n"
      "NIC0\tPXB\tPXB\t X \n";
  for (const std::string& variant : {text, expand_tabs(text)}) {
    Topology t = read_smi_text(variant, "x");
    EXPECT_EQ(t.find("GPU0")->locality.cpus, "");
    EXPECT_EQ(attr(*t.find("GPU0"), "GPU NUMA ID"), "N/A");
    EXPECT_EQ(attr(*t.find("GPU0"), "NUMA Affinity"), "<none>");
    EXPECT_EQ(cell(t, "NIC0", "GPU1"), "PXB");
  }
}

TEST(SmiTextMessy, CpuAffinityNaIsNotACpuList) {
  Topology t = read_smi_text(
      "GPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tPHB\tN/A\tN/A\nGPU1\tPHB\t X \tN/A\tN/A\n", "x");
  EXPECT_EQ(t.find("GPU0")->locality.cpus, "");
  EXPECT_EQ(t.find("GPU0")->locality.numa, -1);
  EXPECT_EQ(attr(*t.find("GPU0"), "CPU Affinity"), "N/A");
}

TEST(SmiTextMessy, AnsiDebrisWithoutEscapeByte) {
  // A copy that lost the ESC bytes keeps "[4m" / "[0m" on the header.
  std::string text =
      "[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity[0m\n"
      "GPU0\t X \tNV2\t0,2,4,6\t0\nGPU1\tNV2\t X \t1,3,5,7\t0\n";
  Topology t = read_smi_text(text, "x");
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "NV2");
  EXPECT_EQ(t.find("GPU1")->locality.cpus, "1,3,5,7");
  EXPECT_EQ(attr(*t.find("GPU1"), "NUMA Affinity"), "0");
}

TEST(SmiTextMessy, ColouredCellsAndCrlf) {
  std::string text =
      "\x1b[1m\tGPU0\tGPU1\tCPU Affinity\x1b[0m\r\nGPU0\t \x1b[32mX\x1b[0m \tPIX\t0-7\r\nGPU1\tPIX\t X \t0-7\r\n";
  Topology t = read_smi_text(text, "x");
  EXPECT_EQ(cell(t, "GPU0", "GPU0"), "X");
  EXPECT_EQ(cell(t, "GPU1", "GPU0"), "PIX");
  EXPECT_EQ(t.find("GPU1")->locality.cpus, "0-7");
}

TEST(SmiTextMessy, DoubleSpacedPasteAndJunkAround) {
  std::string text = "Last login: Mon\nsome log line about GPU0 failing\n" +
                     replace_all(smi_text("stelline-esc8000a-4x6000ada-legend.txt"), "\n", "\n\n") + "\n$ exit\n";
  Topology t = read_smi_text(text, "x");
  EXPECT_EQ(t.endpoints.size(), 8u);
  EXPECT_EQ(t.find("NIC3")->name, "mlx5_3");
  EXPECT_EQ(cell(t, "NIC2", "NIC3"), "PIX");
}

TEST(SmiTextMessy, MixedTabsAndSpacesInOneRow) {
  // Seen in a blog: some cells tab-separated, others by spaces.
  std::string text = "\t   GPU0\tGPU1 GPU2\nGPU0\t X \tPIX\t PHB\nGPU1\tPIX\t X   PHB\nGPU2\tPHB  PHB\t X \n";
  Topology t = read_smi_text(text, "x");
  EXPECT_EQ(cell(t, "GPU0", "GPU2"), "PHB");
  EXPECT_EQ(cell(t, "GPU1", "GPU2"), "PHB");
  EXPECT_EQ(cell(t, "GPU2", "GPU1"), "PHB");
  EXPECT_EQ(cell(t, "GPU2", "GPU2"), "X");
}

TEST(SmiTextMessy, OtherDeviceRowsKeptAsExtra) {
  std::string text = "\tGPU0\tNVME0\tCPU Affinity\nGPU0\t X \tPHB\t0-3\nNVME0\tPHB\t X \t\n";
  Topology t = read_smi_text(text, "x");
  const Endpoint* e = t.find("NVME0");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->role, DeviceRole::Extra);
  EXPECT_EQ(cell(t, "NVME0", "GPU0"), "PHB");
}

TEST(SmiTextMessy, OldAndNewNicLabelsDoNotCollide) {
  std::string text = "\tGPU0\tNIC0\tmlx5_1\nGPU0\t X \tPIX\tSYS\nNIC0\tPIX\t X \tSYS\nmlx5_1\tSYS\tSYS\t X \n";
  Topology t = read_smi_text(text, "x");
  ASSERT_EQ(t.endpoints.size(), 3u);
  EXPECT_EQ(t.endpoints[2].id, "NIC1");
  EXPECT_EQ(t.endpoints[2].name, "mlx5_1");
  EXPECT_EQ(cell(t, "NIC1", "NIC0"), "SYS");
}

TEST(SmiTextMessy, UnknownCodesAreKeptAndNoted) {
  Topology t = read_smi_text("\tGPU0\tGPU1\nGPU0\t X \tPSB\nGPU1\tPSB\t X \n", "x");
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "PSB");
  EXPECT_TRUE(has_note(t, "PSB"));
}

// ------------------------------------------------------------- detection

TEST(SmiTextDetect, EveryDataFileLooksLikeSmiText) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".txt") continue;
    ++files;
    EXPECT_TRUE(looks_like_smi_text(smi_text(entry.path().filename().string()))) << entry.path();
  }
  EXPECT_GE(files, 15);
}

TEST(SmiTextDetect, OtherInputsDoNot) {
  EXPECT_FALSE(looks_like_smi_text(""));
  EXPECT_FALSE(looks_like_smi_text("\n\n   \n"));
  EXPECT_FALSE(
      looks_like_smi_text("node01:1234:1300 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
                          "node01:1234:1300 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
                          "GPU0 failed to allocate\n"));
  EXPECT_FALSE(
      looks_like_smi_text("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:17:00.0\"/>\n"
                          "  </cpu>\n</system>\n"));
  EXPECT_FALSE(looks_like_smi_text("{\"GPU0\": {\"GPU1\": \"NV12\"}}\n"));
  EXPECT_FALSE(
      looks_like_smi_text(std::string("\x7f"
                                      "ELF\x02\x01\x01\0\0\0GPU0\0X\0",
                                      16)));
  EXPECT_FALSE(looks_like_smi_text(" \tGPU0\tGPU1\t\n GPU0\tX\tOK\t\n GPU1\tOK\tX\t\n"));  // topo -p2p
  EXPECT_FALSE(looks_like_smi_text("\tGPU0\tGPU1\tCPU Affinity\n"));                       // header only
}

// ---------------------------------------------------------------- errors

TEST(SmiTextErrors, EmptyInput) {
  EXPECT_NE(smi_error("", "empty.txt").find("empty"), std::string::npos);
  EXPECT_NE(smi_error(" \r\n\t\n", "blank.txt").find("empty"), std::string::npos);
}

TEST(SmiTextErrors, BinaryInput) {
  std::string bin("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0", 16);
  EXPECT_NE(smi_error(bin, "image.png").find("binary"), std::string::npos);
}

TEST(SmiTextErrors, XmlIsNotAMatrix) {
  EXPECT_NE(smi_error("<system version=\"1\">\n  <cpu numaid=\"0\"/>\n</system>\n", "topo.xml").find("no header row"),
            std::string::npos);
}

// A prompt the header was glued to, line breaks otherwise intact.
TEST(SmiTextDamage, PromptGluedToHeaderIsCutOff) {
  Topology t = read_smi_text(
      "$ nvidia-smi topo -m GPU0 GPU1 NIC0 CPU Affinity NUMA Affinity\n"
      "GPU0 X NV4 PIX 0-15 0\n"
      "GPU1 NV4 X SYS 16-31 1\n",
      "glued.txt");
  EXPECT_EQ(cell(t, "GPU0", "NIC0"), "PIX");
  EXPECT_EQ(cell(t, "GPU1", "NIC0"), "SYS");
  EXPECT_EQ(t.find("GPU1")->locality.numa, 1);
}

// Codes glued to the affinity cells: an NV# code before a CPU list cannot
// be told apart from it, so the cell stays as printed (unrecognised),
// never misread as NV4 or NV40.
TEST(SmiTextDamage, NvCodeGluedToCpuListIsNotSplit) {
  Topology t = read_smi_text("GPU0 GPU1 CPU Affinity\nGPU0 X NV40-15\nGPU1 NV4 X 0-15\n", "x");
  EXPECT_EQ(cell(t, "GPU0", "GPU1"), "NV40-15");
  EXPECT_EQ(t.find("GPU0")->locality.cpus, "");
  bool noted = false;
  for (const auto& n : t.notes) noted |= n.find("unrecognised codes: NV40-15") != std::string::npos;
  EXPECT_TRUE(noted);
}

// One reversed CPU range is no nvidia-smi output: no affinity of the
// matrix is used, not even the cells that look valid.
TEST(SmiTextDamage, ReversedCpuRangeDropsEveryAffinity) {
  Topology t = read_smi_text("GPU0 GPU1 CPU Affinity NUMA Affinity\nGPU0 X PIX 0-15 0\nGPU1 PIX X 31-16 1\n", "x");
  EXPECT_EQ(t.find("GPU0")->locality.cpus, "");
  EXPECT_EQ(t.find("GPU0")->locality.numa, -1);
  EXPECT_EQ(t.find("GPU1")->attributes.count("NUMA Affinity"), 0u);
}

TEST(SmiTextErrors, HeaderOnly) {
  EXPECT_NE(smi_error("\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n", "cut.txt").find("no matrix rows"),
            std::string::npos);
}

TEST(SmiTextErrors, ShortRowNamesRowAndCounts) {
  std::string problem = smi_error("\tGPU0\tGPU1\tGPU2\nGPU0\t X \tPIX\n", "short.txt");
  EXPECT_EQ(problem, "matrix row GPU0 has 2 device cells, header has 3 devices");
}

TEST(SmiTextErrors, DuplicateHeaderLabel) {
  EXPECT_NE(smi_error("\tGPU0\tGPU0\nGPU0\t X \tPIX\n").find("twice"), std::string::npos);
}

TEST(SmiTextErrors, OnlyP2pMatrix) {
  EXPECT_NE(smi_error(" \tGPU0\tGPU1\t\n GPU0\tX\tNS\t\n GPU1\tNS\tX\t\n").find("p2p"), std::string::npos);
}

// More devices than any node has, or lines longer than any matrix line,
// are refused without building rows x columns of cells (a 40 MB header
// once cost 13 GB).
TEST(SmiTextErrors, HeaderWithMoreDevicesThanANodeIsRefused) {
  std::string header, row = "GPU0";
  for (int i = 0; i < 300; ++i) {
    header += "\tGPU" + std::to_string(i);
    row += i == 0 ? "\t X " : "\tNV4";
  }
  EXPECT_EQ(smi_error(header + "\n" + row + "\n"), "header names 300 devices; a node has at most 256");
}

TEST(SmiTextErrors, LinesLongerThanAMatrixLineEndTheMatrix) {
  std::string huge_row = "GPU1\tPIX";
  while (huge_row.size() <= 64 * 1024) huge_row += "\tPIX";
  std::string text = "\tGPU0\tGPU1\nGPU0\t X \tPIX\n" + huge_row + "\n";
  EXPECT_NO_THROW((void)read_smi_text(text, "long.txt"));
  std::string huge_header = "\tGPU0";
  while (huge_header.size() <= 64 * 1024) huge_header += "\tGPU0";
  EXPECT_NE(smi_error(huge_header + "\nGPU0\t X\n").find("no header row"), std::string::npos);
}

// Cut or damaged pastes must end in a model or an InputError, nothing else
// (the fuzzer checks the same more widely).
TEST(SmiTextErrors, TruncatedAndMutatedRealFilesNeverCrash) {
  std::mt19937 rng(12345);
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".txt") continue;
    std::string text = smi_text(entry.path().filename().string());
    for (std::size_t cut = 0; cut < text.size(); cut += 7) {
      std::string variant = text.substr(0, cut);
      if (cut % 3 == 0 && !variant.empty()) variant[rng() % variant.size()] = static_cast<char>(rng() % 256);
      try {
        read_smi_text(variant, "fuzz");
      } catch (const InputError&) {
      }
      looks_like_smi_text(variant);
    }
  }
}

}  // namespace
}  // namespace gdrcheck
