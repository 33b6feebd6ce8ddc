// Tests for the `nvidia-smi nvlink --status` / `-R` parser. The real
// outputs in tests/data/nvlink were posted publicly (see PROVENANCE.md);
// each test checks facts read off that paste by eye.
#include "evidence/nvidia_smi_nvlink.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "recorded_fixtures.h"
#include "text_checks.h"

namespace gdrcheck {
namespace {

using testing::has_note;

NvLinkStatus load_nvlink(const std::string& name) {
  return parse_nvidia_smi_nvlink(testing::read_test_data("nvlink/" + name));
}

std::set<int> numbers_in(const NvLinkGpu& g, NvLinkLinkState state) {
  std::set<int> out;
  for (const auto& l : g.links)
    if (l.state == state) out.insert(l.number);
  return out;
}

// No byte below 0x20 (tab included) nor DEL in anything the parser keeps.
bool no_control_bytes(const std::string& s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

void expect_all_printable(const NvLinkStatus& s) {
  EXPECT_TRUE(no_control_bytes(s.problem)) << s.problem;
  for (const auto& n : s.notes) EXPECT_TRUE(no_control_bytes(n)) << n;
  for (const auto& g : s.gpus) {
    EXPECT_TRUE(no_control_bytes(g.name)) << g.name;
    EXPECT_TRUE(no_control_bytes(g.uuid)) << g.uuid;
    EXPECT_TRUE(no_control_bytes(g.message)) << g.message;
    EXPECT_TRUE(no_control_bytes(g.describe())) << g.describe();
    for (const auto& l : g.links) {
      EXPECT_TRUE(no_control_bytes(l.value)) << l.value;
      EXPECT_TRUE(no_control_bytes(l.remote_bus_id)) << l.remote_bus_id;
    }
  }
}

// ---------------------------------------------------------- real outputs

TEST(NvidiaSmiNvlinkReal, HpeH100PcieBridgedPairTwelveOfEighteenActive) {
  NvLinkStatus s = load_nvlink("hpe-dl380a-2xh100-pcie-nvlink-s.txt");
  ASSERT_EQ(s.kind, NvLinkStatus::Kind::Found) << s.problem;
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_TRUE(s.notes.empty()) << s.notes.front();
  for (int i = 0; i < 2; ++i) {
    const NvLinkGpu& g = s.gpus[static_cast<std::size_t>(i)];
    EXPECT_EQ(g.index, i);
    EXPECT_EQ(g.name, "NVIDIA H100 PCIe");
    EXPECT_EQ(g.links.size(), 18u);
    EXPECT_EQ(g.active_links(), 12);
    EXPECT_EQ(g.inactive_links(), 6);
    EXPECT_EQ(numbers_in(g, NvLinkLinkState::Inactive), (std::set<int>{4, 5, 10, 11, 16, 17}));
    EXPECT_EQ(g.state(), NvLinkGpuState::Active);
    EXPECT_FALSE(g.elided);
    EXPECT_EQ(g.describe(), "12 of 18 links active (26.562 GB/s)");
  }
  EXPECT_EQ(s.gpus[0].uuid, "GPU-6968dfc2-d444-d92c-c36b-6abe53445cb9");
  EXPECT_EQ(s.gpus[1].uuid, "GPU-9b1446e2-8a89-4cf6-b68c-a98d99e958d3");
  ASSERT_TRUE(s.gpus[0].links[0].gbytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*s.gpus[0].links[0].gbytes_per_s, 26.562);
  EXPECT_FALSE(s.gpus[0].links[4].gbytes_per_s.has_value());
  EXPECT_EQ(s.gpus[0].links[4].value, "<inactive>");
  EXPECT_TRUE(looks_like_nvidia_smi_nvlink(testing::read_test_data("nvlink/hpe-dl380a-2xh100-pcie-nvlink-s.txt")));
}

TEST(NvidiaSmiNvlinkReal, HpeH100PcieRemoteLinkInfoNamesTheOtherGpu) {
  NvLinkStatus s = load_nvlink("hpe-dl380a-2xh100-pcie-nvlink-R.txt");
  ASSERT_EQ(s.gpus.size(), 2u);
  const NvLinkGpu& g0 = s.gpus[0];
  EXPECT_EQ(g0.links.size(), 12u);
  EXPECT_EQ(g0.active_links(), 12);
  for (const auto& l : g0.links) EXPECT_EQ(l.remote_bus_id, "00000000:D5:00.0");
  EXPECT_EQ(g0.links[4].remote_link, 6);
  EXPECT_EQ(g0.links[11].remote_link, 15);
  EXPECT_EQ(s.gpus[1].links[0].remote_bus_id, "00000000:C2:00.0");
  EXPECT_EQ(g0.describe(), "12 of 12 links active (to 00000000:D5:00.0)");
}

TEST(NvidiaSmiNvlinkReal, HpeA100PcieWithoutBridgeIsAllInactive) {
  NvLinkStatus s = load_nvlink("hpe-dl380-2xa100-pcie-no-bridge.txt");
  ASSERT_EQ(s.kind, NvLinkStatus::Kind::Found);
  ASSERT_EQ(s.gpus.size(), 2u);
  for (const auto& g : s.gpus) {
    EXPECT_EQ(g.name, "NVIDIA A100-PCIE-40GB");
    EXPECT_TRUE(g.links.empty());
    EXPECT_EQ(g.message, "NVML: Unable to retrieve NVLink information as all links are inActive");
    EXPECT_EQ(g.state(), NvLinkGpuState::AllInactive);
  }
  EXPECT_EQ(s.gpus[1].uuid, "GPU-14ac2834-0d81-0508-69eb-e25264c08d21");
  EXPECT_EQ(s.gpus[0].describe(),
            "all links inactive (NVML: Unable to retrieve NVLink information as all links are inActive)");
  EXPECT_TRUE(looks_like_nvidia_smi_nvlink(testing::read_test_data("nvlink/hpe-dl380-2xa100-pcie-no-bridge.txt")));
}

TEST(NvidiaSmiNvlinkReal, SiboehmThreeA6000TwoBridgedOneNot) {
  NvLinkStatus s = load_nvlink("siboehm-bench-3xa6000-one-bridge.txt");
  ASSERT_EQ(s.gpus.size(), 3u);
  EXPECT_EQ(s.gpus[0].active_links(), 4);
  EXPECT_EQ(s.gpus[1].active_links(), 4);
  EXPECT_DOUBLE_EQ(*s.gpus[1].links[3].gbytes_per_s, 14.062);
  EXPECT_EQ(s.gpus[2].state(), NvLinkGpuState::AllInactive);
  EXPECT_EQ(s.gpus[2].uuid, "GPU-02c05ee3-bdb5-aac7-f9e8-a4c8f3f725b3");
  EXPECT_EQ(s.gpus[2].name, "NVIDIA RTX A6000");
}

TEST(NvidiaSmiNvlinkReal, Club3090PairWithBridge) {
  NvLinkStatus s = load_nvlink("club3090-441-2x3090-bridge.txt");
  ASSERT_EQ(s.gpus.size(), 2u);
  for (const auto& g : s.gpus) {
    EXPECT_EQ(g.name, "NVIDIA GeForce RTX 3090");
    EXPECT_EQ(g.links.size(), 4u);
    EXPECT_EQ(g.state(), NvLinkGpuState::Active);
  }
}

TEST(NvidiaSmiNvlinkReal, NcclTestsA100Sxm4CutAfterGpu2) {
  NvLinkStatus s = load_nvlink("nccl-tests-228-8xa100-sxm4-cut.txt");
  ASSERT_EQ(s.gpus.size(), 3u);
  EXPECT_EQ(s.gpus[0].active_links(), 12);
  EXPECT_EQ(s.gpus[1].active_links(), 12);
  EXPECT_DOUBLE_EQ(*s.gpus[0].links[11].gbytes_per_s, 25.0);  // "25 GB/s", no decimals
  EXPECT_FALSE(s.gpus[1].elided);
  // The poster's "......" sits inside GPU 2's block.
  EXPECT_TRUE(s.gpus[2].elided);
  EXPECT_EQ(s.gpus[2].links.size(), 1u);
  EXPECT_EQ(s.gpus[2].state(), NvLinkGpuState::Active);
  EXPECT_EQ(s.gpus[2].describe(), "1 of 1 links active (25 GB/s), more elided");
}

TEST(NvidiaSmiNvlinkReal, AzureV100TwoLinksDownUuidElided) {
  NvLinkStatus s = load_nvlink("azhpc-diagnostics-73-v100-sxm2-two-inactive.txt");
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.find(0), nullptr);
  const NvLinkGpu* g = s.find(3);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(g->uuid, "...");
  EXPECT_EQ(g->links.size(), 6u);
  EXPECT_EQ(g->active_links(), 4);
  EXPECT_EQ(numbers_in(*g, NvLinkLinkState::Inactive), (std::set<int>{3, 5}));
  // "...." before the block: GPUs 0-2 were left out by the poster.
  EXPECT_FALSE(g->elided);
  EXPECT_TRUE(has_note(s, "left out"));
}

TEST(NvidiaSmiNvlinkReal, Gb200CutThenInfoOutputUnderTheSameHeaders) {
  NvLinkStatus s = load_nvlink("k8s-test-infra-371-gb200-cut-then-info.txt");
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].links.size(), 18u);
  EXPECT_EQ(s.gpus[0].active_links(), 18);
  EXPECT_DOUBLE_EQ(*s.gpus[0].links[17].gbytes_per_s, 53.125);
  EXPECT_EQ(s.gpus[1].links.size(), 2u);
  EXPECT_TRUE(s.gpus[1].elided);
  // The -info blocks repeat "GPU 0:" and "GPU 1:" with NVLE/firmware
  // lines; they must not replace or add to the status blocks.
  EXPECT_TRUE(has_note(s, "GPU 0 appears more than once"));
  EXPECT_EQ(s.gpus[0].name, "NVIDIA GB200");
}

TEST(NvidiaSmiNvlinkReal, GpudB200AllLinksDown) {
  NvLinkStatus s = load_nvlink("gpud-1085-b200-all-inactive.txt");
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].index, 2);
  EXPECT_EQ(s.gpus[0].uuid, "GPU-xxx");
  EXPECT_EQ(s.gpus[0].state(), NvLinkGpuState::AllInactive);
}

TEST(NvidiaSmiNvlinkReal, UnigeEightA6000InFourBridgedPairs) {
  NvLinkStatus s = load_nvlink("unige-3741-8xa6000-four-bridges.txt");
  ASSERT_EQ(s.gpus.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const NvLinkGpu* g = s.find(i);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->active_links(), 4);
    EXPECT_EQ(g->links.size(), 4u);
  }
  EXPECT_EQ(s.gpus[7].uuid, "GPU-971d3b23-dc8f-0f96-5271-3eb4060cff19");
}

TEST(NvidiaSmiNvlinkSynthetic, PdshPrefixCrlfAndColouredPrompt) {
  NvLinkStatus s = load_nvlink("synthetic-pdsh-prefix-crlf-ansi.txt");
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(s.gpus[0].uuid, "GPU-00000000-aaaa-bbbb-cccc-dddddddddddd");
  EXPECT_EQ(s.gpus[0].active_links(), 18);
  EXPECT_EQ(s.gpus[1].active_links(), 16);
  EXPECT_EQ(numbers_in(s.gpus[1], NvLinkLinkState::Inactive), (std::set<int>{16, 17}));
  expect_all_printable(s);
}

TEST(NvidiaSmiNvlinkSynthetic, OldDriverWithoutUuid) {
  NvLinkStatus s = load_nvlink("synthetic-old-driver-no-uuid.txt");
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[1].name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(s.gpus[1].uuid, "");
  EXPECT_EQ(s.gpus[1].active_links(), 6);
}

TEST(NvidiaSmiNvlinkReal, EveryFileKeepsOnlyPrintableText) {
  for (const char* name :
       {"hpe-dl380a-2xh100-pcie-nvlink-s.txt", "hpe-dl380a-2xh100-pcie-nvlink-R.txt",
        "hpe-dl380-2xa100-pcie-no-bridge.txt", "siboehm-bench-3xa6000-one-bridge.txt", "club3090-441-2x3090-bridge.txt",
        "nccl-tests-228-8xa100-sxm4-cut.txt", "azhpc-diagnostics-73-v100-sxm2-two-inactive.txt",
        "k8s-test-infra-371-gb200-cut-then-info.txt", "gpud-1085-b200-all-inactive.txt",
        "unige-3741-8xa6000-four-bridges.txt"}) {
    SCOPED_TRACE(name);
    NvLinkStatus s = load_nvlink(name);
    EXPECT_EQ(s.kind, NvLinkStatus::Kind::Found);
    expect_all_printable(s);
  }
}

// --------------------------------------------------- no GPU block found

TEST(NvidiaSmiNvlinkEmpty, EmptyAndBlankOutputSayNoGpuIsListed) {
  for (const char* text : {"", "\n", "  \r\n\t\n"}) {
    NvLinkStatus s = parse_nvidia_smi_nvlink(text);
    EXPECT_EQ(s.kind, NvLinkStatus::Kind::Empty);
    EXPECT_TRUE(s.gpus.empty());
    EXPECT_NE(s.problem.find("no GPU is listed"), std::string::npos) << s.problem;
    EXPECT_FALSE(looks_like_nvidia_smi_nvlink(text));
  }
}

TEST(NvidiaSmiNvlinkEmpty, DriverFailuresAreReportedWithTheirWords) {
  NvLinkStatus s = parse_nvidia_smi_nvlink(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
      "NVIDIA driver is installed and running.\n\n");
  EXPECT_EQ(s.kind, NvLinkStatus::Kind::Failed);
  EXPECT_NE(s.problem.find("couldn't communicate with the NVIDIA driver"), std::string::npos) << s.problem;

  s = parse_nvidia_smi_nvlink("Failed to initialize NVML: Driver/library version mismatch\r\n");
  EXPECT_EQ(s.kind, NvLinkStatus::Kind::Failed);
  EXPECT_NE(s.problem.find("Driver/library version mismatch"), std::string::npos);
}

TEST(NvidiaSmiNvlinkEmpty, OtherTextIsNotNvlinkOutput) {
  std::string topo = testing::read_test_data("nvlink/siboehm-bench-3xa6000-topo-m.txt");
  NvLinkStatus s = parse_nvidia_smi_nvlink(topo);
  EXPECT_EQ(s.kind, NvLinkStatus::Kind::NotNvLink);
  EXPECT_FALSE(looks_like_nvidia_smi_nvlink(topo));
  // `nvidia-smi -q` writes "GPU 00000000:18:00.0", which is no header.
  s = parse_nvidia_smi_nvlink("Attached GPUs : 1\nGPU 00000000:18:00.0\n    Product Name : NVIDIA H100\n");
  EXPECT_EQ(s.kind, NvLinkStatus::Kind::NotNvLink);
}

TEST(NvidiaSmiNvlinkEmpty, LinkLinesWithoutAHeaderAreCountedNotGuessed) {
  NvLinkStatus s = parse_nvidia_smi_nvlink("\t Link 0: 25 GB/s\n\t Link 1: 25 GB/s\n");
  EXPECT_EQ(s.kind, NvLinkStatus::Kind::NotNvLink);
  EXPECT_TRUE(has_note(s, "2 \"Link n:\" line(s) outside any GPU block"));
}

// ------------------------------------------------- partial and unknown

TEST(NvidiaSmiNvlinkUnknown, ListOfGpusWithoutLinksIsUnknownNotInactive) {
  // `nvidia-smi -L` has the same header shape, and no link lines.
  NvLinkStatus s = parse_nvidia_smi_nvlink(
      "GPU 0: NVIDIA A100-PCIE-40GB (UUID: GPU-3fb142e7-7102-c7ac-bd5a-fc829e11ed84)\n"
      "GPU 1: NVIDIA A100-PCIE-40GB (UUID: GPU-14ac2834-0d81-0508-69eb-e25264c08d21)\n");
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].state(), NvLinkGpuState::Unknown);
  EXPECT_NE(s.gpus[0].describe().find("no link lines"), std::string::npos);
  EXPECT_FALSE(looks_like_nvidia_smi_nvlink("GPU 0: NVIDIA A100-PCIE-40GB (UUID: GPU-3)\n"));
}

TEST(NvidiaSmiNvlinkUnknown, ErrorCountersAndCapabilitiesAreNotLinkStates) {
  NvLinkStatus s = parse_nvidia_smi_nvlink(
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n"
      "\t Link 0: Replay Errors: 0\n\t Link 0: Recovery Errors: 0\n\t Link 0: CRC Errors: 0\n"
      "GPU 1: Tesla V100-SXM2-32GB\n\t Link 0, P2P is supported: true\n\t Link 0, SLI is supported: false\n");
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].links.size(), 1u);
  EXPECT_EQ(s.gpus[0].links[0].state, NvLinkLinkState::Unknown);
  EXPECT_EQ(s.gpus[0].state(), NvLinkGpuState::Unknown);
  EXPECT_TRUE(has_note(s, "lists a link twice"));
  EXPECT_TRUE(s.gpus[1].links.empty());
  EXPECT_EQ(s.gpus[1].state(), NvLinkGpuState::Unknown);
}

TEST(NvidiaSmiNvlinkUnknown, ElidedInactiveLinksAreNotAllInactive) {
  NvLinkStatus s = parse_nvidia_smi_nvlink("GPU 0: X (UUID: GPU-a)\n  Link 0: <inactive>\n  [...]\n");
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].state(), NvLinkGpuState::Unknown);
  s = parse_nvidia_smi_nvlink("GPU 0: X (UUID: GPU-a)\n  Link 0: <inactive>\n  Link 1: <inactive>\n");
  EXPECT_EQ(s.gpus[0].state(), NvLinkGpuState::AllInactive);
  EXPECT_EQ(s.gpus[0].describe(), "all 2 links inactive");
  EXPECT_STREQ(nvlink_gpu_state_name(s.gpus[0].state()), "all inactive");
  EXPECT_STREQ(nvlink_gpu_state_name(NvLinkGpuState::Unknown), "unknown");
}

TEST(NvidiaSmiNvlinkUnknown, ZeroRateAndOddValuesAreUnknownLinks) {
  NvLinkStatus s = parse_nvidia_smi_nvlink("GPU 0: X\n Link 0: 0 GB/s\n Link 1: N/A\n Link 2: 25\n");
  ASSERT_EQ(s.gpus[0].links.size(), 3u);
  for (const auto& l : s.gpus[0].links) EXPECT_EQ(l.state, NvLinkLinkState::Unknown) << l.value;
  EXPECT_EQ(s.gpus[0].state(), NvLinkGpuState::Unknown);
}

TEST(NvidiaSmiNvlinkUnknown, OtherNvmlErrorInsideABlockIsUnknown) {
  NvLinkStatus s = parse_nvidia_smi_nvlink("GPU 0: NVIDIA L4 (UUID: GPU-a)\nNVML: Not Supported\n");
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].state(), NvLinkGpuState::Unknown);
  EXPECT_EQ(s.gpus[0].describe(), "NVML: Not Supported");
}

TEST(NvidiaSmiNvlinkUnknown, RepeatedHeaderWithoutContentIsFilledByTheLaterBlock) {
  NvLinkStatus s = parse_nvidia_smi_nvlink("GPU 0: A\nsomething else\nGPU 0: A\n Link 0: 25 GB/s\n");
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].active_links(), 1);
}

TEST(NvidiaSmiNvlinkUnknown, BlankLinesInsideABlockDoNotEndIt) {
  NvLinkStatus s = parse_nvidia_smi_nvlink("GPU 0: A\n\n   Link 0: 25.781 GB/s\n   \n   Link 1: 25.781 GB/s\n");
  EXPECT_EQ(s.gpus[0].active_links(), 2);
}

TEST(NvidiaSmiNvlinkUnknown, APromptEndsTheBlock) {
  NvLinkStatus s = parse_nvidia_smi_nvlink("GPU 0: A\n Link 0: 25 GB/s\n$ echo hi\n Link 1: 25 GB/s\n");
  EXPECT_EQ(s.gpus[0].links.size(), 1u);
  EXPECT_TRUE(has_note(s, "outside any GPU block"));
}

// ---------------------------------------------------------------- hostile

TEST(NvidiaSmiNvlinkHostile, BinaryAndNulBytesAreRefused) {
  std::string nul = "GPU 0: A\n Link 0: 25 GB/s\n";
  nul[3] = '\0';
  NvLinkStatus s = parse_nvidia_smi_nvlink(nul);
  EXPECT_EQ(s.kind, NvLinkStatus::Kind::Binary);
  EXPECT_TRUE(s.gpus.empty());
  std::string garbage;
  std::mt19937 rng(7);
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>(rng() % 32);
  EXPECT_EQ(parse_nvidia_smi_nvlink(garbage).kind, NvLinkStatus::Kind::Binary);
  EXPECT_FALSE(looks_like_nvidia_smi_nvlink(garbage));
}

TEST(NvidiaSmiNvlinkHostile, ControlBytesAndEscapesNeverReachTheResult) {
  NvLinkStatus s = parse_nvidia_smi_nvlink(
      "GPU 0: Evil\x07Name\x1b]0;owned\x07 \x1b[31mRed\x1b[0m \xc2\x9b"
      "2J (UUID: GPU-\x1b[2Jx)\r\n"
      "\t Link 0: 25 GB/s\x1b[K\r\n\t Link 1: <inactive>\x08\x08\r\n");
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].name, "Evil Name Red ??2J");  // C1 CSI (U+009B) as two bytes
  EXPECT_EQ(s.gpus[0].uuid, "GPU-x");
  EXPECT_EQ(s.gpus[0].active_links(), 1);
  EXPECT_EQ(s.gpus[0].inactive_links(), 1);
  expect_all_printable(s);
}

TEST(NvidiaSmiNvlinkHostile, TenMegabyteLineIsBoundedAndFast) {
  auto start = std::chrono::steady_clock::now();
  std::string big = "GPU 0: " + std::string(10u << 20, 'A') + "\n Link 0: 25 GB/s\n";
  NvLinkStatus s = parse_nvidia_smi_nvlink(big);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_LE(s.gpus[0].name.size(), 128u);
  EXPECT_EQ(s.gpus[0].active_links(), 1);

  std::string links;
  for (int i = 0; links.size() < (10u << 20); ++i) links += " Link " + std::to_string(i % 1000) + ": 25 GB/s";
  s = parse_nvidia_smi_nvlink("GPU 0: A\n" + links + "\n");
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].links.size(), 1u);  // one line holds one link

  s = parse_nvidia_smi_nvlink(std::string(10u << 20, '\n'));
  EXPECT_EQ(s.kind, NvLinkStatus::Kind::Empty);
  std::string escapes(10u << 20, '\x1b');
  EXPECT_EQ(parse_nvidia_smi_nvlink("GPU 0: A" + escapes + "\n").gpus.size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(NvidiaSmiNvlinkHostile, GpuAndLinkCountsAreCapped) {
  std::string many;
  for (int i = 0; i < 1500; ++i) many += "GPU " + std::to_string(i) + ": X\n Link 0: 25 GB/s\n";
  NvLinkStatus s = parse_nvidia_smi_nvlink(many);
  EXPECT_EQ(s.gpus.size(), 1024u);
  EXPECT_TRUE(has_note(s, "more than 1024 GPUs"));

  s = parse_nvidia_smi_nvlink("GPU 0: X\n Link 63: 25 GB/s\n Link 64: 25 GB/s\n Link 99999: 25 GB/s\n");
  ASSERT_EQ(s.gpus[0].links.size(), 1u);
  EXPECT_EQ(s.gpus[0].links[0].number, 63);
  EXPECT_TRUE(has_note(s, "above 63"));
  EXPECT_EQ(parse_nvidia_smi_nvlink("GPU 99999: X\n").kind, NvLinkStatus::Kind::NotNvLink);
}

TEST(NvidiaSmiNvlinkHostile, NotesStayFewWhateverTheInput) {
  std::string dup;
  for (int i = 0; i < 5000; ++i) dup += "GPU " + std::to_string(i % 40) + ": X\n Link 0: 1 GB/s\n";
  NvLinkStatus s = parse_nvidia_smi_nvlink(dup);
  EXPECT_EQ(s.gpus.size(), 40u);
  EXPECT_LE(s.notes.size(), 16u);
}

TEST(NvidiaSmiNvlinkHostile, RandomTextNeverCrashesAndStaysPrintable) {
  std::mt19937 rng(20240611);
  const std::vector<std::string> pieces = {
      "GPU ",   "Link ", ": ",      "<inactive>", " GB/s",          "26.562",
      "\n",     "\t",    "(UUID: ", ")",          "Remote Device ", "00000000:D5:00.0",
      "NVML: ", "...",   "\x1b[",   "\r",         "\xff",           "\xc2\x85",
      "-",      "1e999", "7"};
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
    NvLinkStatus s = parse_nvidia_smi_nvlink(text);
    expect_all_printable(s);
    for (const auto& g : s.gpus) {
      EXPECT_GE(g.index, 0);
      EXPECT_LE(g.links.size(), 64u);
    }
    (void)looks_like_nvidia_smi_nvlink(text);
  }
}

}  // namespace
}  // namespace gdrcheck
