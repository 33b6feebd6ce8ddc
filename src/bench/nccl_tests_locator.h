// Finds an nccl-tests binary (all_reduce_perf, ...): in the directory the
// user named (or its build/ subdirectory, where `make` puts them), then in
// PATH, then in the places clusters and containers usually install them.
// With a launcher the binary must exist at the same path on every node;
// only this node is looked at.
#pragma once

#include <string>
#include <vector>

namespace gdrcheck {

struct LocatedBinary {
  std::string path;                   // "" when not found
  std::vector<std::string> searched;  // every place looked at, in order (for the UNKNOWN reason)
};

// Install places tried after PATH (NGC containers, AWS DLAMI/ParallelCluster,
// HPC-X style trees, builds under /opt and /usr/local).
const std::vector<std::string>& common_nccl_tests_dirs();

// `test` is a name like "all_reduce_perf". `dir` ("" = not given) is tried
// first and alone: a directory the user named that lacks the test is not
// silently replaced by another build. `path_env` is PATH's value.
LocatedBinary locate_nccl_test(const std::string& test, const std::string& dir, const std::string& path_env,
                               const std::vector<std::string>& common_dirs = common_nccl_tests_dirs());

}  // namespace gdrcheck
