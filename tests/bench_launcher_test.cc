// Launcher argument vectors and the NCCL environment of a bench run.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/launcher.h"
#include "bench/nccl_environment.h"

namespace gdrcheck {
namespace {

bool has_sequence(const std::vector<std::string>& v, const std::vector<std::string>& seq) {
  return std::search(v.begin(), v.end(), seq.begin(), seq.end()) != v.end();
}

LaunchPlan two_node_plan(BenchLauncher l) {
  LaunchPlan p;
  p.launcher = l;
  p.hosts = {"gpu01", "gpu02"};
  p.ranks_per_node = 8;
  p.env = {{"NCCL_DEBUG", "INFO"}, {"NCCL_IB_HCA", "=mlx5_0,mlx5_1"}};
  return p;
}

TEST(BenchLauncher, OpenMpiExportsEachVariableWithX) {
  LaunchCommand c =
      build_launch(two_node_plan(BenchLauncher::Mpirun), {"/opt/nccl-tests/build/all_reduce_perf", "-g", "1"});
  EXPECT_EQ(c.argv.front(), "mpirun");
  EXPECT_TRUE(has_sequence(c.argv, {"-np", "16"}));
  EXPECT_TRUE(has_sequence(c.argv, {"--host", "gpu01:8,gpu02:8"}));
  EXPECT_TRUE(has_sequence(c.argv, {"--map-by", "ppr:8:node"}));
  EXPECT_TRUE(has_sequence(c.argv, {"--bind-to", "none"}));
  EXPECT_TRUE(has_sequence(c.argv, {"-x", "NCCL_DEBUG"}));
  EXPECT_TRUE(has_sequence(c.argv, {"-x", "NCCL_IB_HCA"}));
  // Values travel in the environment, never in an argument.
  for (const auto& a : c.argv) EXPECT_EQ(a.find("=mlx5_0"), std::string::npos) << a;
  EXPECT_EQ(c.env_set, two_node_plan(BenchLauncher::Mpirun).env);
  EXPECT_EQ(std::count(c.argv.begin(), c.argv.end(), "--allow-run-as-root"), 0);
  EXPECT_TRUE(has_sequence(c.argv, {"/opt/nccl-tests/build/all_reduce_perf", "-g", "1"}));
  EXPECT_EQ(c.argv.back(), "1");
  EXPECT_EQ(c.total_ranks, 16);
}

TEST(BenchLauncher, OpenMpiAllowsRootOnlyWhenRoot) {
  LaunchPlan p = two_node_plan(BenchLauncher::Mpirun);
  p.running_as_root = true;
  LaunchCommand c = build_launch(p, {"x"});
  EXPECT_EQ(c.argv[1], "--allow-run-as-root");
}

TEST(BenchLauncher, OpenMpiHostfileNeedsNodeCount) {
  LaunchPlan p;
  p.launcher = BenchLauncher::Mpirun;
  p.hostfile = "/etc/hosts.mpi";
  EXPECT_NE(launch_plan_problem(p), "");
  p.nodes = 4;
  p.ranks_per_node = 2;
  EXPECT_EQ(launch_plan_problem(p), "");
  LaunchCommand c = build_launch(p, {"x"});
  EXPECT_TRUE(has_sequence(c.argv, {"--hostfile", "/etc/hosts.mpi"}));
  EXPECT_TRUE(has_sequence(c.argv, {"-np", "8"}));
}

TEST(BenchLauncher, MpirunWithoutHostsIsAProblem) {
  LaunchPlan p;
  p.launcher = BenchLauncher::Mpirun;
  EXPECT_NE(launch_plan_problem(p), "");
  p.ranks_per_node = 0;
  p.launcher = BenchLauncher::Local;
  EXPECT_NE(launch_plan_problem(p), "");
}

TEST(BenchLauncher, SrunExportsNamesNotValues) {
  LaunchCommand c = build_launch(two_node_plan(BenchLauncher::Srun), {"all_reduce_perf", "-g", "1"});
  EXPECT_EQ(c.argv.front(), "srun");
  EXPECT_TRUE(has_sequence(c.argv, {"--nodes=2"}));
  EXPECT_TRUE(has_sequence(c.argv, {"--nodelist=gpu01,gpu02"}));
  EXPECT_TRUE(has_sequence(c.argv, {"--ntasks-per-node=8"}));
  // A value with ',' (NCCL_IB_HCA) would break --export=NAME=VALUE lists.
  EXPECT_TRUE(has_sequence(c.argv, {"--export=ALL,NCCL_DEBUG,NCCL_IB_HCA"}));
  EXPECT_TRUE(has_sequence(c.argv, {"--kill-on-bad-exit=1"}));
  EXPECT_EQ(c.env_set.size(), 2u);
  EXPECT_EQ(c.total_ranks, 16);
}

TEST(BenchLauncher, SrunInsideAnAllocationLeavesNodesToSlurm) {
  LaunchPlan p;
  p.launcher = BenchLauncher::Srun;
  p.ranks_per_node = 4;
  p.extra_args = {"--mpi=pmix"};
  LaunchCommand c = build_launch(p, {"all_reduce_perf"});
  for (const auto& a : c.argv) {
    EXPECT_NE(a.rfind("--nodes", 0), 0u) << a;
    EXPECT_NE(a.rfind("--nodelist", 0), 0u) << a;
  }
  EXPECT_TRUE(has_sequence(c.argv, {"--export=ALL", "--kill-on-bad-exit=1", "--mpi=pmix", "all_reduce_perf"}));
  EXPECT_EQ(c.total_ranks, 0);
}

TEST(BenchLauncher, LocalRunsTheEngineItself) {
  LaunchPlan p;
  p.env = {{"NCCL_DEBUG", "INFO"}};
  LaunchCommand c = build_launch(p, {"all_reduce_perf", "-g", "8"});
  EXPECT_EQ(c.argv, (std::vector<std::string>{"all_reduce_perf", "-g", "8"}));
  EXPECT_EQ(c.env_set, p.env);
}

TEST(BenchLauncher, Names) {
  EXPECT_EQ(bench_launcher_from_name("srun"), BenchLauncher::Srun);
  EXPECT_EQ(bench_launcher_from_name("mpirun"), BenchLauncher::Mpirun);
  EXPECT_EQ(bench_launcher_from_name("ssh"), std::nullopt);
}

const std::string* value_of(const NcclRunEnvironment& e, const std::string& name) {
  for (const auto& kv : e.set)
    if (kv.first == name) return &kv.second;
  return nullptr;
}

TEST(BenchNcclEnvironment, DebugOnAndUserSettingsKept) {
  NcclRunEnvironment e = nccl_run_environment({{{"NCCL_IB_HCA", "mlx5_0"}, {"HOME", "/root"}}, 4, false});
  ASSERT_NE(value_of(e, "NCCL_DEBUG"), nullptr);
  EXPECT_EQ(*value_of(e, "NCCL_DEBUG"), "INFO");
  EXPECT_EQ(*value_of(e, "NCCL_DEBUG_SUBSYS"), "INIT,NET");
  EXPECT_EQ(*value_of(e, "NCCL_IB_HCA"), "mlx5_0");
  EXPECT_EQ(value_of(e, "HOME"), nullptr);
  EXPECT_EQ(value_of(e, "NCCL_ALGO"), nullptr);  // four nodes: NCCL chooses
  EXPECT_EQ(value_of(e, "NCCL_NET_GDR_LEVEL"), nullptr);
}

TEST(BenchNcclEnvironment, RingOnTwoNodesUnlessTheUserChose) {
  EXPECT_EQ(*value_of(nccl_run_environment({{}, 2, false}), "NCCL_ALGO"), "RING");
  NcclRunEnvironment user = nccl_run_environment({{{"NCCL_ALGO", "Tree"}}, 2, false});
  EXPECT_EQ(*value_of(user, "NCCL_ALGO"), "Tree");
  ASSERT_FALSE(user.notes.empty());
  EXPECT_NE(user.notes.back().find("not a floor"), std::string::npos);
}

TEST(BenchNcclEnvironment, SubsystemsExtendedAndLevelRaised) {
  NcclRunEnvironment e = nccl_run_environment({{{"NCCL_DEBUG", "WARN"}, {"NCCL_DEBUG_SUBSYS", "COLL"}}, 2, false});
  EXPECT_EQ(*value_of(e, "NCCL_DEBUG"), "INFO");
  EXPECT_EQ(*value_of(e, "NCCL_DEBUG_SUBSYS"), "COLL,INIT,NET");
  EXPECT_EQ(*value_of(nccl_run_environment({{{"NCCL_DEBUG_SUBSYS", "ALL"}}, 1, false}), "NCCL_DEBUG_SUBSYS"), "ALL");
  EXPECT_EQ(*value_of(nccl_run_environment({{{"NCCL_DEBUG_SUBSYS", "^INIT"}}, 1, false}), "NCCL_DEBUG_SUBSYS"),
            "INIT,NET");
  EXPECT_EQ(*value_of(nccl_run_environment({{{"NCCL_DEBUG", "TRACE"}}, 1, false}), "NCCL_DEBUG"), "TRACE");
}

TEST(BenchNcclEnvironment, DebugFileIsUnsetSoTheLogReachesTheOutput) {
  NcclRunEnvironment e = nccl_run_environment({{{"NCCL_DEBUG_FILE", "/tmp/nccl.%h.%p"}}, 2, false});
  EXPECT_EQ(e.unset, std::vector<std::string>{"NCCL_DEBUG_FILE"});
  EXPECT_EQ(value_of(e, "NCCL_DEBUG_FILE"), nullptr);
}

TEST(BenchNcclEnvironment, GdrOffArmForcesLoc) {
  NcclRunEnvironment e = nccl_run_environment({{{"NCCL_NET_GDR_LEVEL", "SYS"}}, 2, true});
  EXPECT_EQ(*value_of(e, "NCCL_NET_GDR_LEVEL"), "LOC");
  EXPECT_EQ(std::count_if(e.set.begin(), e.set.end(), [](const auto& kv) { return kv.first == "NCCL_NET_GDR_LEVEL"; }),
            1);
}

TEST(BenchNcclEnvironment, NcclVariablesFromEnviron) {
  auto v = nccl_variables({"PATH=/bin", "NCCL_SOCKET_IFNAME=eth0", "NCCL_BAD", "XNCCL_A=1"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first, "NCCL_SOCKET_IFNAME");
  EXPECT_EQ(v[0].second, "eth0");
}

}  // namespace
}  // namespace gdrcheck
