#include "cluster/slurm_schedulable.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

// Lines as Slurm 22.05's `scontrol -o show node` prints them (cut to the
// fields that matter here).
constexpr const char* kNodes =
    "NodeName=gpu01 Arch=x86_64 State=IDLE ThreadsPerCore=2 Reason=\n"
    "NodeName=gpu02 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=2 "
    "Reason=gdrcheck: peermem CRITICAL [root@2026-12-03T17:00:00]\n"
    "NodeName=gpu03 Arch=x86_64 State=MIXED+DRAIN ThreadsPerCore=2 Reason=disk errors [admin@2026-12-01T09:00:00]\n"
    "NodeName=gpu04 Arch=x86_64 State=DOWN+NOT_RESPONDING ThreadsPerCore=2 Reason=Not responding [slurm@2026-12-02]\n"
    "NodeName=gpu05 Arch=x86_64 State=ALLOCATED ThreadsPerCore=2\n"
    "NodeName=gpu06 Arch=x86_64 State=IDLE+POWERED_DOWN ThreadsPerCore=2\n"
    "NodeName=gpu07 Arch=x86_64 State=IDLE+RESERVED ThreadsPerCore=2\n"
    "NodeName=gpu08 Arch=x86_64 State=FUTURE ThreadsPerCore=2\n";

TEST(SlurmSchedulable, DrainedDownAndPoweredDownNodesTakeNoJob) {
  auto nodes = parse_slurm_nodes(kNodes);
  EXPECT_TRUE(takes_new_jobs(nodes.at("gpu01")));
  EXPECT_FALSE(takes_new_jobs(nodes.at("gpu02")));
  EXPECT_FALSE(takes_new_jobs(nodes.at("gpu03")));  // draining: no new job either
  EXPECT_FALSE(takes_new_jobs(nodes.at("gpu04")));
  EXPECT_TRUE(takes_new_jobs(nodes.at("gpu05")));  // busy, but srun may share or wait for it
  EXPECT_FALSE(takes_new_jobs(nodes.at("gpu06")));
  EXPECT_TRUE(takes_new_jobs(nodes.at("gpu07")));  // the operator may be in the reservation
  EXPECT_FALSE(takes_new_jobs(nodes.at("gpu08")));
  SlurmNodeState star{"gpu09", "DOWN*", "", false};
  EXPECT_FALSE(takes_new_jobs(star));
}

TEST(SlurmSchedulable, SplitKeepsOrderAndSaysHowToReachTheOthers) {
  auto split = split_schedulable({"gpu01", "gpu02", "gpu05", "gpu04", "gpu99"}, parse_slurm_nodes(kNodes));
  EXPECT_EQ(split.runnable, (std::vector<std::string>{"gpu01", "gpu05", "gpu99"}));  // gpu99: srun will say
  ASSERT_EQ(split.skipped.size(), 2u);
  const NodeOutcome& drained = split.skipped[0];
  EXPECT_EQ(drained.host, "gpu02");
  EXPECT_EQ(drained.how, NodeOutcome::How::NotSchedulable);
  EXPECT_STREQ(how_name(drained.how), "not schedulable");
  EXPECT_NE(drained.reason.find("State=IDLE+DRAIN, Reason='gdrcheck: peermem CRITICAL'"), std::string::npos)
      << drained.reason;
  EXPECT_NE(drained.reason.find("gdrcheck cluster --ssh gpu02, with --resume"), std::string::npos) << drained.reason;
  EXPECT_EQ(split.skipped[1].host, "gpu04");
}

TEST(SlurmSchedulable, NothingKnownKeepsEveryNode) {
  auto split = split_schedulable({"gpu01", "gpu02"}, {});
  EXPECT_EQ(split.runnable.size(), 2u);
  EXPECT_TRUE(split.skipped.empty());
}

}  // namespace
}  // namespace gdrcheck
