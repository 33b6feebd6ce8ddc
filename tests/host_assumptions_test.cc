// `node --topo FILE --assume ...`: what a planner states about a host that a
// topology file cannot show, and the one `host` finding that says it.
#include "checks/host_assumptions.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gdrcheck {
namespace {

std::string parse_error(const std::vector<std::string>& values) {
  try {
    parse_host_assumptions(values);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(HostAssumptions, ParsesKeysAcrossValuesInOneOrder) {
  HostAssumptions a = parse_host_assumptions({"ports=active, peermem=ok", "iommu=ok"});
  EXPECT_EQ(a.text(), "peermem=ok,ports=active,iommu=ok");
  EXPECT_EQ(*a.find("ports"), "active");
  EXPECT_EQ(a.find("acs"), nullptr);
  EXPECT_EQ(parse_host_assumptions({}).text(), "");
}

TEST(HostAssumptions, AllStatesEveryFactGood) {
  HostAssumptions a = parse_host_assumptions({"all=ok"});
  EXPECT_EQ(a.text(), "peermem=ok,ports=active,acs=ok,iommu=ok,links=ok,driver=ok");
  // A fact stated after all=ok must agree with it.
  EXPECT_NE(parse_error({"all=ok,peermem=missing"}).find("stated twice (ok and missing)"), std::string::npos);
}

TEST(HostAssumptions, RefusesWhatItDoesNotKnowNamingIt) {
  EXPECT_NE(parse_error({"peermem=ok,nvlink=ok"}).find("'nvlink' is not a fact that can be assumed"),
            std::string::npos);
  EXPECT_NE(parse_error({"nvlink=ok"}).find("known: peermem, ports, acs, iommu, links, driver, all"),
            std::string::npos);
  EXPECT_NE(parse_error({"peermem=yes"}).find("'peermem=yes': peermem is ok or missing"), std::string::npos);
  EXPECT_NE(parse_error({"ports=ok"}).find("ports is active"), std::string::npos);
  EXPECT_NE(parse_error({"peermem"}).find("'peermem' is not KEY=VALUE"), std::string::npos);
  EXPECT_NE(parse_error({"=ok"}).find("is not KEY=VALUE"), std::string::npos);
  EXPECT_NE(parse_error({"all=missing"}).find("all takes ok only"), std::string::npos);
  EXPECT_EQ(parse_error({"peermem=ok,peermem=ok"}), "");  // the same statement twice is one statement
}

TEST(HostAssumptions, UnstatedFactsAreOneUnknownFindingThatSaysHowToStateThem) {
  Finding f = topology_file_host_finding(parse_host_assumptions({"peermem=ok"}), "vendor.xml");
  EXPECT_EQ(f.check, "host");
  EXPECT_EQ(f.subject, "host");
  EXPECT_EQ(f.status, Status::Unknown);
  EXPECT_NE(f.summary.find("not in a topology file: ports, acs, iommu, links, driver"), std::string::npos) << f.summary;
  EXPECT_NE(f.fix.find("--assume ports=active,acs=ok,iommu=ok,links=ok,driver=ok"), std::string::npos) << f.fix;
  EXPECT_EQ(f.evidence.front(), "topology file: vendor.xml (the PCI tree only)");
  EXPECT_NE(f.evidence[1].find("(stated: ok)"), std::string::npos);
}

TEST(HostAssumptions, EveryFactStatedGoodIsOk) {
  Finding f = topology_file_host_finding(parse_host_assumptions({"all=ok"}), "vendor.xml");
  EXPECT_EQ(f.status, Status::Ok);
  EXPECT_NE(f.summary.find("peermem=ok,ports=active"), std::string::npos) << f.summary;
}

TEST(HostAssumptions, PeerMemoryStatedMissingIsCritical) {
  Finding g = topology_file_host_finding(parse_host_assumptions({"peermem=missing"}), "x");
  EXPECT_EQ(g.status, Status::Critical);
  EXPECT_NE(g.summary.find("peermem=missing"), std::string::npos);
}

TEST(HostAssumptions, PeerMemoryForThePrediction) {
  GdrHostFacts facts;
  apply_peer_memory_assumption(parse_host_assumptions({}), facts);
  EXPECT_EQ(facts.stated_peer_memory, Tri::Yes);
  EXPECT_NE(facts.stated_by.find("a topology file does not show it"), std::string::npos);
  apply_peer_memory_assumption(parse_host_assumptions({"peermem=missing"}), facts);
  EXPECT_EQ(facts.stated_peer_memory, Tri::No);
  EXPECT_EQ(facts.stated_by, "--assume peermem=missing");
}

}  // namespace
}  // namespace gdrcheck
