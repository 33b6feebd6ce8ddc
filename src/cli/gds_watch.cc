#include "cli/gds_watch.h"

#include <chrono>
#include <cstdio>

#include "evidence/nvfs_stats.h"
#include "host/host_state.h"
#include "host/process.h"

namespace gdrcheck {
namespace {

constexpr const char* kStats = "/proc/driver/nvidia-fs/stats";

NvfsStatsReading read_stats(const Root& root) {
  // One byte over the parser's bound, so that a file that big reads as
  // truncated rather than as a whole file that happens to end there.
  FileRead f = root.read(kStats, kMaxNvfsStatsBytes + 1);
  if (!f.ok()) return {std::nullopt, f.reason()};
  return {parse_nvfs_stats(f.content), ""};
}

// Passes the command's bytes through unchanged: they are the user's own
// tool talking to the user's terminal, not data gdrcheck interprets.
void pass_through(std::FILE* to, std::string_view bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), to);
  std::fflush(to);
}

}  // namespace

void add_gds_watch_options(CLI::App* cmd, GdsWatchCliOptions& o) {
  cmd->add_flag("--watch", o.watch,
                "run the command given after -- and judge from nvidia-fs's counters whether its I/O went direct");
  cmd->add_option("--timeout", o.timeout_s, "with --watch: seconds before the command is stopped (default: none)")
      ->check(CLI::Range(1, 7 * 86400));
  cmd->add_option("command", o.command, "with --watch: the command and its arguments, after --");
}

void validate_gds_watch(const GdsWatchCliOptions& o, bool root_is_snapshot) {
  if (!o.watch) {
    if (!o.command.empty())
      throw CLI::ValidationError("--watch", "'" + o.command.front() + "': a command is only taken with --watch");
    if (o.timeout_s > 0) throw CLI::ValidationError("--timeout", "only with --watch");
    return;
  }
  if (o.command.empty())
    throw CLI::ValidationError("--watch", "needs the command to run after --: gds --watch -- COMMAND [ARGS...]");
  if (root_is_snapshot)
    throw CLI::ValidationError("--watch",
                               "a snapshot's counters cannot move: watch this machine (or a directory "
                               "where its /proc is mounted)");
}

GdsWatch run_gds_watch(const GdsWatchCliOptions& o, const Root& root, bool json) {
  GdsWatchInput in;
  in.command = o.command;
  in.before = read_stats(root);
  ProcessSpec spec = ProcessSpec::command(o.command);
  spec.timeout = std::chrono::seconds(o.timeout_s);
  std::FILE* out = json ? stderr : stdout;
  spec.stdout_sink = [out](std::string_view d) { pass_through(out, d); };
  spec.stderr_sink = [](std::string_view d) { pass_through(stderr, d); };
  std::fflush(stdout);
  in.run = run_process(spec);
  if (in.run.end != ProcessResult::End::NotStarted) in.after = read_stats(root);
  in.nvidia_fs_loaded = root.is_dir("/sys/module/nvidia_fs");
  in.rw_stats_enabled = read_fact(root, "/sys/module/nvidia_fs/parameters/rw_stats_enabled");
  return judge_gds_watch(in);
}

void append_gds_watch(GdsReport& r, GdsWatch w) {
  r.findings.insert(r.findings.end(), w.findings.begin(), w.findings.end());
  r.status = worst_status(r.findings);
  r.watch = std::move(w);
}

}  // namespace gdrcheck
