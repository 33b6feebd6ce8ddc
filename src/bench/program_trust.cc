#include "bench/program_trust.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>

namespace gdrcheck {
namespace {

bool trusted_owner(uid_t owner, uid_t invoking_uid) {
  return owner == 0 || owner == invoking_uid;
}

std::string owner_text(uid_t owner) {
  return "owned by uid " + std::to_string(owner) + ", neither root nor the user running gdrcheck";
}

// "/a/b/c" -> "/", "/a", "/a/b" (the directories that must be searched to
// reach it).
std::vector<std::string> ancestors(const std::filesystem::path& absolute) {
  std::vector<std::string> out;
  std::filesystem::path so_far = absolute.root_path();
  out.push_back(so_far.string());
  std::filesystem::path parent = absolute.parent_path();
  for (const auto& part : parent.relative_path()) {
    so_far /= part;
    out.push_back(so_far.string());
  }
  return out;
}

bool stat_facts(const std::string& path, PathFacts& facts, std::string& problem) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    problem = path + ": " + std::strerror(errno);
    return false;
  }
  facts = PathFacts{path, st.st_uid, st.st_mode};
  return true;
}

}  // namespace

std::string directory_trust_problem(const PathFacts& dir, uid_t invoking_uid) {
  if (!S_ISDIR(dir.mode)) return dir.path + ": not a directory";
  if ((dir.mode & S_IWOTH) && !(dir.mode & S_ISVTX))
    return dir.path + ": directory is world-writable without the sticky bit (any user can replace what it holds)";
  if (!trusted_owner(dir.owner, invoking_uid))
    return dir.path + ": directory " + owner_text(dir.owner) + " (its owner can replace what it holds)";
  return "";
}

std::string program_trust_problem(const PathFacts& file, const std::vector<PathFacts>& dirs, uid_t euid,
                                  uid_t invoking_uid) {
  if (euid != 0) return "";  // not root: it runs with the rights of whoever could plant it anyway
  if (!S_ISREG(file.mode)) return file.path + ": not a regular file";
  if (file.mode & S_IWOTH) return file.path + ": world-writable (any user can replace the program)";
  if (file.mode & S_IWGRP) return file.path + ": group-writable (the group's users can replace the program)";
  if (!trusted_owner(file.owner, invoking_uid)) return file.path + ": " + owner_text(file.owner);
  for (const auto& d : dirs)
    if (std::string p = directory_trust_problem(d, invoking_uid); !p.empty()) return p;
  return "";
}

PathChain path_chain(const std::string& path) {
  PathChain c;
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  std::filesystem::path canonical = ec ? absolute : std::filesystem::canonical(absolute, ec);
  if (ec) {
    c.problem = path + ": " + ec.message();
    return c;
  }
  if (!stat_facts(canonical.string(), c.target, c.problem)) return c;
  // Both chains: a link in a directory another user controls can be
  // pointed elsewhere, and so can the directories its target sits in.
  std::set<std::string> seen;
  for (const auto& chain : {ancestors(absolute.lexically_normal()), ancestors(canonical)})
    for (const auto& dir : chain) {
      if (!seen.insert(dir).second) continue;
      PathFacts f;
      if (!stat_facts(dir, f, c.problem)) return c;
      c.dirs.push_back(f);
    }
  return c;
}

std::string program_trust_problem_at(const std::string& path, uid_t euid, uid_t invoking_uid, const std::string& fix) {
  if (euid != 0) return "";
  PathChain c = path_chain(path);
  std::string problem = c.problem.empty() ? program_trust_problem(c.target, c.dirs, euid, invoking_uid) : c.problem;
  if (problem.empty()) return "";
  return problem + "; refusing to run " + path + " as root (" + fix + ")";
}

std::string directory_trust_problem_at(const std::string& dir, uid_t invoking_uid) {
  PathChain c = path_chain(dir);
  if (!c.problem.empty()) return c.problem;
  if (std::string p = directory_trust_problem(c.target, invoking_uid); !p.empty()) return p;
  for (const auto& d : c.dirs)
    if (std::string p = directory_trust_problem(d, invoking_uid); !p.empty()) return p;
  return "";
}

}  // namespace gdrcheck
