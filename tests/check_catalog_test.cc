// The catalog must name every check the node report runs, with every
// status it gives: --list-checks and the site policy rely on it.
#include "checks/check_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "node_checks.h"
#include "recorded_fixtures.h"
#include "report/check_list_text.h"

namespace gdrcheck {
namespace {

bool catalog_has(const Finding& f) {
  const CheckInfo* c = find_check(f.check);
  return c && std::count(c->statuses.begin(), c->statuses.end(), f.status) == 1;
}

TEST(CheckCatalog, IdsAreUniqueAndDescribed) {
  std::set<std::string_view> ids;
  for (const auto& c : check_catalog()) {
    EXPECT_TRUE(ids.insert(c.id).second) << c.id;
    EXPECT_FALSE(c.looks_at.empty()) << c.id;
    EXPECT_FALSE(c.statuses.empty()) << c.id;
  }
  EXPECT_EQ(find_check("iommu")->id, "iommu");
  EXPECT_EQ(find_check("IOMMU"), nullptr);
  EXPECT_EQ(find_check(""), nullptr);
  EXPECT_EQ(check_ids_text().rfind("gpu, nic, port, ", 0), 0u);
}

// Good, faulty and unreadable nodes between them produce every check.
TEST(CheckCatalog, EveryFindingOfBuiltNodesIsInTheCatalog) {
  std::set<std::string> seen;
  for (const auto& [node, variants] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{{"dgx-h100", {}},
                                                                     {"dgx-h100", {"iommu-translated"}},
                                                                     {"dgx-h100", {"rootless"}},
                                                                     {"dgx-h100", {"peermem-missing", "nic-slow"}},
                                                                     {"pcie-geforce", {}},
                                                                     {"vm-flattened", {}}}) {
    auto checked = testing::check(testing::node_root(node, variants));
    for (const auto& f : checked.report.findings) {
      EXPECT_TRUE(catalog_has(f)) << node << ": " << f.check << " " << status_name(f.status) << " " << f.subject;
      seen.insert(f.check);
    }
  }
  for (const char* id : {"gpu", "nic", "port", "peermem", "path", "acs", "iommu", "link", "nccl", "driver"})
    EXPECT_TRUE(seen.count(id)) << id;
}

TEST(CheckListText, ListsEveryCheckWithinTheWidth) {
  OutputStyle style{false, true, 80};
  std::string text = render_check_list(style);
  for (const auto& c : check_catalog()) EXPECT_NE(text.find("\n" + std::string(c.id) + " "), std::string::npos) << c.id;
  EXPECT_NE(text.find("iommu     OK WARNING CRITICAL UNKNOWN   whether the IOMMU"), std::string::npos) << text;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_LE(end - start, 80u) << text.substr(start, end - start);
}

}  // namespace
}  // namespace gdrcheck
