// --what-if: moving a device in a topology file's PCI tree.
#include "topology/topology_edit.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "recorded_fixtures.h"
#include "topology/input_error.h"
#include "topology/path_matrix.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

using testing::test_data;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(TopologyEdit, ParsesMovesAndRefusesOtherText) {
  auto m = parse_what_if_text("move 0000:ca:00.0 under 0000:17:00.0; move 3b:00.0 beside 0000:1b:00.0\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].device.str(), "0000:ca:00.0");
  EXPECT_EQ(m[1].device.str(), "0000:3b:00.0");
  EXPECT_EQ(m[1].under.str(), "0000:1b:00.0");
  EXPECT_NE(error_of([] { parse_what_if_text("move ca:00.0 to 17:00.0"); }).find("is not 'move DEVICE under BRIDGE'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_what_if_text("move mlx5_3 under 17:00.0"); }).find("'mlx5_3' is not a PCI address"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_what_if_text(" ; "); }).find("no move given"), std::string::npos);
}

TEST(TopologyEdit, EditFileIsCheckedKeyByKey) {
  auto m = parse_what_if_json(R"({"moves": [{"device": "ca:00.0", "under": "17:00.0"}]})", "plan.json");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].under.str(), "0000:17:00.0");
  EXPECT_NE(error_of([] { parse_what_if_json(R"({"moves": [], "x": 1})", "plan.json"); }).find("plan.json: needs"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_what_if_json(R"({"moves": [{"device": "a"}], "x": 1})", "plan.json");
            }).find("unknown key \"x\""),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_what_if_json(R"({"moves": [{"device": 1, "under": "17:00.0"}]})", "p.json");
            }).find("each move is"),
            std::string::npos);
  EXPECT_THROW(parse_what_if_json("{", "p.json"), InputError);
}

// Dell XE8640 (hwloc XML): GPU2 (0000:9b:00.0... read from the file) has
// no NIC; moving mlx5_3's slot under GPU2's switch makes them PIX, and the
// NIC leaves GPU3.
TEST(TopologyEdit, MovingANicUnderAGpusSwitchMakesThemNeighbours) {
  Topology t = load_topology_file(test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml"), TopologyFileKind::Auto);
  const Endpoint* gpu2 = t.find("GPU2");
  const Endpoint* nic3 = t.find("NIC3");
  ASSERT_TRUE(gpu2 && nic3 && gpu2->address && nic3->address);
  std::vector<int> chain = t.bridge_chain(gpu2->node);
  ASSERT_GE(chain.size(), 2u);
  const PciAddress place = *t.nodes[chain[chain.size() - 2]].address;
  EXPECT_EQ(compute_paths(t).smi_at("GPU2", "NIC3").code, "SYS");
  auto applied = apply_moves(t, {{*nic3->address, place}});
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_NE(applied[0].description.find("to under " + place.str()), std::string::npos) << applied[0].description;
  TopologyPaths after = compute_paths(t);
  EXPECT_NE(after.smi_at("GPU2", "NIC3").code, "SYS");
  EXPECT_EQ(after.smi_at("GPU3", "NIC3").code, "SYS");
  EXPECT_EQ(t.find("NIC3")->locality.numa, gpu2->locality.numa);
}

TEST(TopologyEdit, RefusesWhatCannotBeMoved) {
  Topology t = load_topology_file(test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml"), TopologyFileKind::Auto);
  PciAddress gpu0 = *t.find("GPU0")->address;
  std::vector<int> chain = t.bridge_chain(t.find("GPU0")->node);
  PciAddress above = *t.nodes[chain.front()].address;
  EXPECT_NE(error_of([&] { apply_moves(t, {{above, gpu0}}); }).find("or below it"), std::string::npos);
  EXPECT_NE(error_of([&] {
              apply_moves(t, {{*PciAddress::parse("0000:ee:00.0"), gpu0}});
            }).find("no device 0000:ee:00.0"),
            std::string::npos);
  Topology matrix = load_topology_file(test_data("smi/nccl-933-nv8-9nic.txt"), TopologyFileKind::Auto);
  EXPECT_NE(error_of([&] { apply_moves(matrix, {{gpu0, gpu0}}); }).find("no PCI tree"), std::string::npos);
}

}  // namespace
}  // namespace gdrcheck
