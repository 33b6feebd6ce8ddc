// Finds an nccl-tests binary (all_reduce_perf, ...): in the directory the
// user named (or its build/ subdirectory, where `make` puts them), else in
// PATH. Nothing else is guessed: `bench` runs as root in Slurm prologs, and
// a binary found in a place nobody named (/workspace, /root, a tree under
// /opt) is whatever someone left there. Whether the binary found may be run
// as root is program_trust.h's question. With a launcher the binary must
// exist at the same path on every node; only this node is looked at.
#pragma once

#include <string>
#include <vector>

namespace gdrcheck {

struct LocatedBinary {
  std::string path;                   // "" when not found
  std::vector<std::string> searched;  // every place looked at, in order (for the UNKNOWN reason)
};

// `test` is a name like "all_reduce_perf". `dir` ("" = not given) is tried
// first and alone: a directory the user named that lacks the test is not
// silently replaced by another build. `path_env` is PATH's value; its empty
// and relative entries (the current directory) are not searched.
LocatedBinary locate_nccl_test(const std::string& test, const std::string& dir, const std::string& path_env);

// What to do about a binary program_trust.h refused.
inline constexpr const char* kNcclTestsTrustFix =
    "chown root / chmod go-w, or pass --nccl-tests DIR with a trusted build";

}  // namespace gdrcheck
