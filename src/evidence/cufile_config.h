// A cuFile configuration (`cufile.json`) as libcufile reads it: JSON with
// `//` and `/* */` comments. What it says about the GPUDirect Storage path
// (platform-spec §5.2): whether cuFile may or must fall back to POSIX I/O
// through host memory (compat mode), the PCI-P2PDMA routes, the RDMA NICs
// and peer type for user-space RDMA file systems, write support, and what
// is denied. A file that does not parse is reported with the parser's line
// and column: cuFile then runs with its built-in defaults, whatever the
// file meant. Values of the wrong type are named, never guessed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

struct CufileConfig {
  std::string file;
  bool parsed = false;
  std::string error;          // why it did not parse: "parse error at line 12, column 3: ..."
  bool syntax_error = false;  // not JSON at all: libcufile then uses its built-in defaults
                              // (else gdrcheck refused it: too deep, a key twice)

  // properties.allow_compat_mode (older files: use_compat_mode); the key
  // that set it, for evidence.
  std::optional<bool> allow_compat_mode;
  std::string allow_compat_key;
  std::optional<bool> force_compat_mode;
  std::optional<bool> use_pci_p2pdma;           // properties.use_pci_p2pdma
  std::vector<std::string> p2pdma_routes;       // "block.nvme", "fs.virtiofs", ... with use_pci_p2pdma true
  std::vector<std::string> rdma_dev_addr_list;  // properties.rdma_dev_addr_list
  std::optional<std::string> rdma_peer_type;    // "peer_mem", "dmabuf"
  std::optional<bool> gds_rdma_write_support;
  std::map<std::string, std::vector<std::string>> denylist;  // drivers, devices, mounts, filesystems: non-empty ones
  std::vector<std::string> problems;  // "properties.force_compat_mode: expected true or false, not \"yes\""
};

CufileConfig parse_cufile_config(std::string_view text, const std::string& file);

}  // namespace gdrcheck
