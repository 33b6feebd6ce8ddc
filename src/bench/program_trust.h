// Whether a program gdrcheck found on disk may be run as root, and whether a
// directory may hold the files gdrcheck writes. `bench` runs in Slurm
// prologs and maintenance jobs as root: a binary that another user can
// replace (its own bits, or any directory on its path) runs that user's
// code as root, and a directory another user can rename entries in lets
// them swap gdrcheck's output directory for a link.
//
// The rules are functions of stat results and user ids, so every case is
// testable without changing users; the *_at functions gather the facts.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gdrcheck {

// What stat(2) said about one path.
struct PathFacts {
  std::string path;
  uid_t owner = 0;
  mode_t mode = 0;  // st_mode: type and permission bits
};

// Why a directory on a trusted path is not trusted; "" when it is. A
// world-writable directory is fine with the sticky bit (/tmp: others cannot
// rename or remove what is not theirs); one owned by a user other than root
// or `invoking_uid` is not (its owner can rename anything in it).
std::string directory_trust_problem(const PathFacts& dir, uid_t invoking_uid);

// Why `file`, reached through `dirs` (every directory from / down to the
// file, through links too), must not be run as root; "" when it may or
// when `euid` is not root. `invoking_uid` is the real uid.
std::string program_trust_problem(const PathFacts& file, const std::vector<PathFacts>& dirs, uid_t euid,
                                  uid_t invoking_uid);

// Every directory a path depends on: the ancestors of its absolute form
// and of its canonical form (links resolved), from / down. `problem` says
// why they could not be gathered (the path does not resolve, ...).
struct PathChain {
  PathFacts target;  // the canonical path's own facts
  std::vector<PathFacts> dirs;
  std::string problem;
};
PathChain path_chain(const std::string& path);

// program_trust_problem for the program at `path`, with `fix` appended
// ("chown root ..., or pass --nccl-tests DIR ..."). "" when it may run.
std::string program_trust_problem_at(const std::string& path, uid_t euid, uid_t invoking_uid, const std::string& fix);

// directory_trust_problem for `dir` and every directory above it.
std::string directory_trust_problem_at(const std::string& dir, uid_t invoking_uid);

}  // namespace gdrcheck
