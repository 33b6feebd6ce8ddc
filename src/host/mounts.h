// The mount table as the kernel prints it (/proc/mounts, /proc/self/mounts:
// "device mountpoint fstype options dump pass"), and the mount that holds a
// path. Fields escape space, tab, newline and backslash as octal (\040);
// they are unescaped here. mount(8)'s listing ("DEV on DIR type FS (OPTS)"),
// which users paste instead, is read too. The table comes from the node
// (or a recorded root): other lines are skipped and counted, never
// guessed at.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gdrcheck {

struct Mount {
  std::string device;                // "/dev/nvme0n1p1", "10.0.0.1@o2ib:/lustre", "server:/export"
  std::string mountpoint;            // "/raid"
  std::string fstype;                // "ext4", "lustre", "nfs4"
  std::vector<std::string> options;  // "rw", "relatime", "data=ordered"
  int line = 0;                      // 1-based line in the table

  bool has_option(const std::string& name) const;                   // "rw", "data=ordered"
  std::optional<std::string> option(const std::string& key) const;  // "proto" → "rdma"
};

struct MountTable {
  std::vector<Mount> mounts;
  std::size_t skipped = 0;  // lines that are not a mount (or past the cap)
};

MountTable parse_mounts(const std::string& text);

// The mount that holds `path` (absolute, already resolved): the longest
// mount point that is `path` or a parent of it, component-wise; of several
// mounts on one point the last (the one on top). nullptr when none.
const Mount* mount_holding(const MountTable& table, const std::string& path);

}  // namespace gdrcheck
