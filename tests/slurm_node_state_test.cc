// `scontrol -o show node` lines as Slurm 22.05 prints them: which nodes are
// drained, and whether gdrcheck drained them.
#include "cluster/slurm_node_state.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

const std::string kHead =
    "Arch=x86_64 CoresPerSocket=8 CPUAlloc=0 CPUEfctv=16 CPUTot=16 CPULoad=0.02 AvailableFeatures=(null) "
    "ActiveFeatures=(null) Gres=gpu:8 NodeAddr=10.0.0.6 NodeHostName=gpu06 Version=22.05.8 OS=Linux "
    "5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023  RealMemory=515000 AllocMem=0 FreeMem=500000 "
    "Sockets=2 Boards=1 ";
const std::string kTail =
    " ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu  BootTime=2026-12-01T10:00:00 "
    "SlurmdStartTime=2026-12-01T10:01:00 LastBusyTime=2026-12-03T17:00:00 CfgTRES=cpu=16,mem=515000M,billing=16 "
    "AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s";

std::string line(const std::string& name, const std::string& state, const std::string& reason = "") {
  return "NodeName=" + name + " " + kHead + "State=" + state + kTail + (reason.empty() ? "" : " Reason=" + reason);
}

TEST(SlurmNodeState, DrainedByGdrcheck) {
  auto s = parse_slurm_node_line(line("gpu06", "IDLE+DRAIN", "gdrcheck: peermem CRITICAL [root@2026-12-03T17:00:00]"));
  EXPECT_EQ(s.name, "gpu06");
  EXPECT_EQ(s.state, "IDLE+DRAIN");
  EXPECT_TRUE(s.drain);
  EXPECT_EQ(s.reason, "gdrcheck: peermem CRITICAL");
  EXPECT_TRUE(s.drained_by_gdrcheck());
}

// One line exactly as `scontrol show node -o NAME` prints it: with its
// newline, which is not part of the reason.
TEST(SlurmNodeState, TheLineEndIsNotPartOfTheReason) {
  auto s =
      parse_slurm_node_line(line("gpu06", "IDLE+DRAIN", "gdrcheck: acs CRITICAL [root@2026-12-03T17:00:00]") + "\n");
  EXPECT_EQ(s.reason, "gdrcheck: acs CRITICAL");
  EXPECT_TRUE(s.drained_by_gdrcheck());
  EXPECT_EQ(parse_slurm_node_line(line("gpu06", "IDLE+DRAIN", "gdrcheck: acs CRITICAL") + "\r\n").reason,
            "gdrcheck: acs CRITICAL");
}

TEST(SlurmNodeState, DrainedForAnotherReasonOrNotDrained) {
  auto disk = parse_slurm_node_line(line("gpu07", "MIXED+DRAIN", "disk errors [admin@2026-12-02T09:00:00]"));
  EXPECT_TRUE(disk.drain);
  EXPECT_FALSE(disk.drained_by_gdrcheck());
  // A reason that only mentions gdrcheck later was not set by it.
  auto mention = parse_slurm_node_line(line("gpu08", "IDLE+DRAIN", "see gdrcheck: later [a@2026-12-02T09:00:00]"));
  EXPECT_FALSE(mention.drained_by_gdrcheck());
  auto idle = parse_slurm_node_line(line("gpu09", "IDLE"));
  EXPECT_FALSE(idle.drain);
  EXPECT_EQ(idle.reason, "");
  // A gdrcheck reason on a node that is no longer drained: nothing to resume.
  auto resumed = parse_slurm_node_line(line("gpu10", "IDLE", "gdrcheck: acs CRITICAL [root@2026-12-03T17:00:00]"));
  EXPECT_FALSE(resumed.drained_by_gdrcheck());
  EXPECT_TRUE(parse_slurm_node_line(line("gpu11", "DOWN+DRAIN+NOT_RESPONDING", "gdrcheck: acs CRITICAL [r@t]")).drain);
  EXPECT_FALSE(parse_slurm_node_line(line("gpu12", "IDLE+DRAINX", "gdrcheck: acs CRITICAL [r@t]")).drain);
}

// The reason is free text anyone with scontrol may set: "State=" or
// brackets inside it change nothing.
TEST(SlurmNodeState, FieldsInsideTheReasonAreNotFields) {
  auto s = parse_slurm_node_line(line("gpu06", "IDLE", "x State=IDLE+DRAIN [y] [root@2026-12-03T17:00:00]"));
  EXPECT_EQ(s.state, "IDLE");
  EXPECT_FALSE(s.drain);
  EXPECT_EQ(s.reason, "x State=IDLE+DRAIN [y]");
}

TEST(SlurmNodeState, SeveralLinesAndNoise) {
  std::string out = line("gpu06", "IDLE+DRAIN", "gdrcheck: acs,iommu CRITICAL [root@2026-12-03T17:00:00]") +
                    "\n\nNode gpu99 not found\n" + line("gpu07", "IDLE") + "\n" + line("gpu06", "IDLE") + "\n";
  auto nodes = parse_slurm_nodes(out);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_TRUE(nodes.at("gpu06").drained_by_gdrcheck());  // the first line of a name counts
  EXPECT_EQ(nodes.at("gpu06").reason, "gdrcheck: acs,iommu CRITICAL");
  EXPECT_FALSE(nodes.at("gpu07").drain);
  EXPECT_TRUE(parse_slurm_nodes("").empty());
  EXPECT_TRUE(parse_slurm_nodes("garbage\x1b[2J\nNodeName").empty());
}

}  // namespace
}  // namespace gdrcheck
