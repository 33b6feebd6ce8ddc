#include "topology/path_matrix.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "recorded_fixtures.h"
#include "topology/hwloc_source.h"

namespace gdrcheck {
namespace {

using testing::test_data;

Topology xe8640() {
  return read_hwloc_xml(test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml"));
}

// Every cell is the class of its pair: the dense matrix is indexed in the
// same order as `ids`, row by column.
TEST(PathMatrix, EveryCellIsTheClassOfItsPair) {
  Topology t = xe8640();
  TopologyPaths p = compute_paths(t);
  ASSERT_EQ(p.ids.size(), t.with_role(DeviceRole::Gpu).size() + t.with_role(DeviceRole::Nic).size() +
                              t.with_role(DeviceRole::Nvme).size() + t.with_role(DeviceRole::Extra).size());
  ASSERT_EQ(p.smi.size(), p.ids.size() * p.ids.size());
  std::set<std::string> codes;
  for (const auto& a : p.ids)
    for (const auto& b : p.ids) {
      SmiClass want = smi_class(t, *t.find(a), *t.find(b));
      EXPECT_EQ(p.smi_at(a, b).code, want.code()) << a << " " << b;
      EXPECT_EQ(p.smi_at(a, b).why, want.why) << a << " " << b;
      codes.insert(p.smi_at(a, b).code);
    }
  EXPECT_EQ(codes, (std::set<std::string>{"X", "PIX", "SYS"}));
  EXPECT_EQ(p.nccl_at(p.ids[0], p.ids[0]).code, "LOC");
}

TEST(PathMatrix, AnIdNotInTheMatrixIsUnknown) {
  TopologyPaths p = compute_paths(xe8640());
  EXPECT_EQ(p.smi_at("GPU0", "no-such-device").code, "?");
  EXPECT_EQ(p.nccl_at("no-such-device", "GPU0").why, "not computed");
  EXPECT_FALSE(p.index_of("no-such-device").has_value());
  EXPECT_EQ(TopologyPaths{}.smi_at("GPU0", "GPU0").code, "?");
}

// Two devices with one id (a hostile file can say anything) resolve to the
// last of them, as one entry per id always did.
TEST(PathMatrix, ADuplicateIdIsItsLastRowAndColumn) {
  TopologyPaths p;
  p.set_ids({"GPU0", "NIC0", "GPU0"});
  ASSERT_EQ(p.smi.size(), 9u);
  EXPECT_EQ(p.smi_at("GPU0", "NIC0").code, "?");  // every cell unknown until filled
  p.smi_cell(0, 1) = {"SYS", "first"};
  p.smi_cell(2, 1) = {"PIX", "last"};
  EXPECT_EQ(p.index_of("GPU0"), 2u);
  EXPECT_EQ(p.smi_at("GPU0", "NIC0").why, "last");
}

}  // namespace
}  // namespace gdrcheck
