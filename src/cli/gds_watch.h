// `gdrcheck gds --watch -- COMMAND [ARGS...]`: reads nvidia-fs's counters
// (ROOT/proc/driver/nvidia-fs/stats), runs the command, reads them again,
// and judges the difference (checks/gds_watch.h). gds_command.cc only
// wires these options into `gds`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "checks/gds_report.h"
#include "checks/gds_watch.h"
#include "host/root.h"

namespace gdrcheck {

struct GdsWatchCliOptions {
  bool watch = false;
  std::vector<std::string> command;  // everything after "--"
  int timeout_s = 0;                 // 0: the command runs as long as it runs
};

void add_gds_watch_options(CLI::App* cmd, GdsWatchCliOptions& o);

// Usage errors (CLI::ValidationError, exit 64): --watch without a command,
// a command or --timeout without --watch, --watch on a snapshot tarball
// (its counters cannot move).
void validate_gds_watch(const GdsWatchCliOptions& o, bool root_is_snapshot);

// Runs the command between two readings of the counters. Its standard
// output and error are passed through as they arrive (its standard output
// to standard error when `json`, so that standard output holds only the
// report); its standard input is empty.
GdsWatch run_gds_watch(const GdsWatchCliOptions& o, const Root& root, bool json);

// The watch's findings appended to the report, and the report's status
// made the worst of all.
void append_gds_watch(GdsReport& r, GdsWatch w);

}  // namespace gdrcheck
