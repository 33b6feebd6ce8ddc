// What the cross-check predicts with: the log's own NCCL settings (its
// "NCCL_X set by environment to Y" echoes) and release (its "NCCL version"
// line), unless the user gives --env / --nccl-version; the user's win.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/crosscheck.h"
#include "checks/node_report.h"
#include "evidence/nccl_log.h"
#include "host/host_state.h"

namespace gdrcheck {

struct CrosscheckUser {
  std::vector<NcclSetting> env;             // --env, highest precedence
  std::optional<NcclVersion> nccl_version;  // --nccl-version
};

// The settings layers for reading the host (or a topology file's state):
// --env first, then the log's echoes (origin "the log, line N").
HostReadOptions crosscheck_read_options(const NcclLogReport& log, const CrosscheckUser& user);

// The release (the user's, else the log's when gdrcheck has rules for it)
// and, for a topology file, the host facts assumed; `with` says both.
NodeOptions crosscheck_node_options(const NcclLogReport& log, const CrosscheckUser& user, bool topology_file,
                                    std::string* with);

// One topology against one log: the node model's prediction for the
// topology, made with the log's settings and release, beside what the
// log's channel lines show. A topology file's host facts are assumed; a
// recorded root's are read from it (`root`: its directory).
Crosscheck crosscheck_topology_file(const Topology& t, const std::string& file, const NcclLogReport& log,
                                    const std::string& log_file, const CrosscheckUser& user);
Crosscheck crosscheck_root(const Topology& t, const std::string& root, const NcclLogReport& log,
                           const std::string& log_file, const CrosscheckUser& user);

}  // namespace gdrcheck
