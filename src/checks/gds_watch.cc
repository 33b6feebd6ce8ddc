// `gds.watch`: the nvidia-fs counters before and after a command, judged
// for what they can and cannot prove (checks/gds_watch.h says why).
#include "checks/gds_watch.h"

#include <algorithm>
#include <array>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

constexpr const char* kStats = "/proc/driver/nvidia-fs/stats";
constexpr const char* kParam = "/sys/module/nvidia_fs/parameters/rw_stats_enabled";
constexpr std::size_t kMaxGpuEvidence = 32;
constexpr std::size_t kMaxCommandText = 200;

struct Counter {
  const char* group;
  const char* key;
};

// Counters that only grow until a reset or a reload. Bandwidth, latency,
// "Ops" (I/O in flight), Bar1-map "active" and the scalars go up and down.
constexpr std::array kCumulative = {
    Counter{"Reads", "n"},
    Counter{"Reads", "ok"},
    Counter{"Reads", "err"},
    Counter{"Reads", "readMiB"},
    Counter{"Reads", "readmb"},
    Counter{"Reads", "io_state_err"},
    Counter{"Writes", "n"},
    Counter{"Writes", "ok"},
    Counter{"Writes", "err"},
    Counter{"Writes", "writeMiB"},
    Counter{"Writes", "writemb"},
    Counter{"Writes", "io_state_err"},
    Counter{"Writes", "pg-cache"},
    Counter{"Writes", "pg-cache-fail"},
    Counter{"Writes", "pg-cache-eio"},
    Counter{"Sparse Reads", "n"},
    Counter{"Batches", "n"},
    Counter{"Batches", "ok"},
    Counter{"Batches", "err"},
    Counter{"Mmap", "n"},
    Counter{"Mmap", "ok"},
    Counter{"Mmap", "err"},
    Counter{"Mmap", "munmap"},
    Counter{"Bar1-map", "n"},
    Counter{"Bar1-map", "ok"},
    Counter{"Bar1-map", "err"},
    Counter{"Bar1-map", "free"},
    Counter{"Error", "cpu-gpu-pages"},
    Counter{"Error", "sg-ext"},
    Counter{"Error", "dma-map"},
    Counter{"Error", "dma-ref"},
};

// The error counters nvidia-fs keeps whether or not IO stats are enabled.
constexpr std::array kErrors = {
    Counter{"Reads", "err"},
    Counter{"Reads", "io_state_err"},
    Counter{"Writes", "err"},
    Counter{"Writes", "io_state_err"},
    Counter{"Writes", "pg-cache-fail"},
    Counter{"Writes", "pg-cache-eio"},
    Counter{"Batches", "err"},
    Counter{"Mmap", "err"},
    Counter{"Bar1-map", "err"},
    Counter{"Error", "cpu-gpu-pages"},
    Counter{"Error", "sg-ext"},
    Counter{"Error", "dma-map"},
    Counter{"Error", "dma-ref"},
};

std::optional<std::uint64_t> counter_value(const NvfsStats& s, std::string_view group, std::string_view key) {
  const NvfsValue* v = s.value(group, key);
  return v ? *v : std::nullopt;
}

// after - before for counters that did not go down; nullopt otherwise.
std::optional<std::uint64_t> rise(const NvfsStats& b, const NvfsStats& a, std::string_view group,
                                  std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    auto x = counter_value(b, group, k), y = counter_value(a, group, k);
    if (x && y && *y >= *x) return *y - *x;
    if (b.value(group, k) || a.value(group, k)) return std::nullopt;
  }
  return std::nullopt;
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string s = printable(join(argv, " "));
  if (s.size() > kMaxCommandText) s = s.substr(0, kMaxCommandText) + "...";
  return s;
}

std::string counter_name(const Counter& c) {
  return std::string(c.group) + " " + c.key;
}

std::string n(std::uint64_t v) {
  return std::to_string(v);
}

// "Reads n 0 -> 5120, ok 0 -> 5120, readMiB 0 -> 5120" for the evidence.
std::string group_change(const NvfsStats& b, const NvfsStats& a, const std::string& group) {
  const NvfsGroup* g = a.group(group);
  if (!g) return "";
  std::vector<std::string> parts;
  for (const auto& [key, value] : g->values) {
    if (key.find('(') != std::string::npos) continue;  // bandwidth and latency: not counts
    auto before = counter_value(b, group, key);
    parts.push_back(printable(key) + " " + (before ? n(*before) : "?") + " -> " + (value ? n(*value) : "?"));
  }
  return group + ": " + join(parts, ", ");
}

std::string mib_text(std::optional<std::uint64_t> mib, std::optional<std::uint64_t> ops) {
  if (!mib) return "? MiB";
  // nvidia-fs prints whole MiB of a running total: I/O that moved less
  // than a MiB can leave it unchanged.
  if (*mib == 0 && ops && *ops > 0) return "less than 1 MiB";
  return n(*mib) + " MiB";
}

// Evidence without the empty lines of groups a release does not print.
std::vector<std::string> lines(std::vector<std::string> v) {
  v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());
  return v;
}

Finding unknown(std::string summary, std::vector<std::string> evidence, std::string fix) {
  return problem("gds.watch", "host", Status::Unknown, std::move(summary), lines(std::move(evidence)), std::move(fix));
}

const char* kNodeWide =
    "nvidia-fs counters are node-wide: I/O by other processes during the run counts too, and I/O that went "
    "through compat mode is not counted at all (cuFile's own statistics, gds_stats -p PID -l 3 with "
    "profile.cufile_stats 3, give the split)";

const char* kWhatDecides =
    "what decides: the command's own report (gdsio prints the transfer mode it asked for; an application's "
    "cuFile log at INFO level, cufile.log, says when it falls back to compat), or gds_stats -p PID -l 3 with "
    "profile.cufile_stats 3 (its posix count is compat I/O); set properties.allow_compat_mode to false in the "
    "job's cufile.json so that compat I/O fails instead of passing silently";

// Whether nvidia-fs's per-GPU lines note traffic across root ports.
std::vector<std::string> gpu_evidence(const std::vector<NvfsGpu>& gpus, std::vector<std::string>& crossing) {
  std::vector<std::string> out;
  for (const auto& g : gpus) {
    std::vector<std::string> parts;
    for (const auto& [key, value] : g.values) {
      parts.push_back(printable(key) + " " + (value ? n(*value) : "?"));
      if (key == "cross_root_port(%)" && value && *value > 0)
        crossing.push_back("GPU " + printable(g.bdf) + " " + n(*value) + "%");
    }
    if (out.size() < kMaxGpuEvidence) out.push_back("GPU " + printable(g.bdf) + ": " + join(parts, ", "));
  }
  if (gpus.size() > kMaxGpuEvidence) out.push_back("... and " + n(gpus.size() - kMaxGpuEvidence) + " more GPUs");
  return out;
}

std::optional<Finding> command_finding(const GdsWatchInput& in) {
  if (in.run.end == ProcessResult::End::Exited && in.run.exit_code == 0) return std::nullopt;
  std::string cmd = command_text(in.command);
  std::string how = printable(in.run.describe());
  return problem("gds.watch", "command", Status::Warning,
                 cmd + " ended with " + how +
                     ": its I/O may have failed or stopped early; the counters cover what it did until then",
                 {"the command: " + how}, "see the command's own output above; run it again once it succeeds");
}

// A reading that is missing or not nvidia-fs statistics, as a finding.
std::optional<Finding> unreadable(const GdsWatchInput& in) {
  for (const auto* r : {&in.before, &in.after}) {
    const char* when = r == &in.before ? "before" : "after";
    if (!r->stats) {
      if (!in.nvidia_fs_loaded)
        return unknown(
            "nvidia-fs is not loaded: there are no counters to watch; cuFile I/O on NVMe, NVMe-oF, Lustre, NFS over "
            "RDMA and BeeGFS cannot have used the nvfs route, and the PCI-P2PDMA route and user-space RDMA file "
            "systems (WekaFS, GPFS) never show in these counters",
            {"/sys/module/nvidia_fs: not found", printable(r->problem)},
            "load nvidia-fs (modprobe nvidia-fs) and run again; docs/gds.md says what decides without it");
      return unknown(
          std::string("the nvidia-fs statistics could not be read ") + when + " the command: " + printable(r->problem),
          {printable(r->problem)}, std::string("read ") + kStats + " as root (or capture it)");
    }
    if (!r->stats->recognised())
      return unknown(
          std::string(kStats) + " read " + when + " the command is not nvidia-fs statistics (no line nvidia-fs prints)",
          {std::string(kStats) + ": " + n(r->stats->ignored_lines) + " unrecognised lines"},
          "check that the file is nvidia-fs's (cat it)");
  }
  return std::nullopt;
}

Finding rw_stats_off(const GdsWatchInput& in, const NvfsStats& b, const NvfsStats& a, const GdsWatchCounts& c) {
  std::vector<std::string> ev = {
      std::string(kStats) + ": IO stats: " + (a.io_stats ? (*a.io_stats ? "Enabled" : "Disabled") : "not printed") +
          "; Reads and Writes print their error counters only",
      in.rw_stats_enabled.evidence(), group_change(b, a, "Bar1-map"), "the command: " + printable(in.run.describe())};
  std::string why = in.rw_stats_enabled.value ? "rw_stats_enabled = " + printable(*in.rw_stats_enabled.value)
                                              : std::string("IO stats: Disabled");
  std::string summary =
      "the nvidia-fs read/write counters are off (" + why + "): they cannot show whether the command's I/O went direct";
  if (c.bar1_maps && *c.bar1_maps > 0)
    summary += "; cuFile mapped GPU memory through nvidia-fs " + n(*c.bar1_maps) +
               " time(s) during the run (Bar1-map), a sign it set up the nvfs route, not proof that I/O used it";
  return unknown(summary, ev,
                 std::string("as root: echo 1 > ") + kParam +
                     " (options nvidia_fs rw_stats_enabled=1 in /etc/modprobe.d keeps it across module loads), "
                     "then run again");
}

}  // namespace

GdsWatchCounts compare_nvfs_stats(const NvfsStats& b, const NvfsStats& a) {
  GdsWatchCounts c;
  c.reads = rise(b, a, "Reads", {"n"});
  c.reads_ok = rise(b, a, "Reads", {"ok"});
  c.read_mib = rise(b, a, "Reads", {"readMiB", "readmb"});
  c.writes = rise(b, a, "Writes", {"n"});
  c.writes_ok = rise(b, a, "Writes", {"ok"});
  c.write_mib = rise(b, a, "Writes", {"writeMiB", "writemb"});
  c.batches = rise(b, a, "Batches", {"n"});
  c.mmaps = rise(b, a, "Mmap", {"n"});
  c.bar1_maps = rise(b, a, "Bar1-map", {"n"});
  for (const Counter& x : kCumulative) {
    auto before = counter_value(b, x.group, x.key), after = counter_value(a, x.group, x.key);
    if (before && after && *after < *before)
      c.went_down.push_back(counter_name(x) + " " + n(*before) + " -> " + n(*after));
  }
  for (const Counter& x : kErrors) {
    auto before = counter_value(b, x.group, x.key), after = counter_value(a, x.group, x.key);
    if (before && after && *after > *before) c.errors_rose.push_back({counter_name(x), *after - *before});
  }
  return c;
}

GdsWatch judge_gds_watch(const GdsWatchInput& in) {
  GdsWatch w;
  w.command = in.command;
  w.outcome = in.run.describe();
  if (in.run.end == ProcessResult::End::Exited) w.exit_code = in.run.exit_code;
  if (in.run.end == ProcessResult::End::Signaled) w.signal = in.run.signal;
  std::string cmd = command_text(in.command);
  if (in.run.end == ProcessResult::End::NotStarted) {
    w.findings.push_back(problem("gds.watch", "command", Status::Unknown,
                                 cmd + " did not run (" + printable(in.run.describe()) + "): nothing was measured",
                                 {"the command: " + printable(in.run.describe())},
                                 "give a command that exists (a path, or a program in PATH)"));
    return w;
  }
  if (auto f = command_finding(in)) w.findings.push_back(*f);
  if (auto f = unreadable(in)) {
    w.findings.push_back(*f);
    return w;
  }
  const NvfsStats& b = *in.before.stats;
  const NvfsStats& a = *in.after.stats;
  w.io_stats = a.io_stats;
  w.driver_version = a.driver_version;
  w.gpus = a.gpus;
  if (b.driver_version != a.driver_version) {
    w.findings.push_back(unknown("nvidia-fs was reloaded during the run (driver " +
                                     printable(b.driver_version.value_or("?")) + " before, " +
                                     printable(a.driver_version.value_or("?")) + " after): its counters restarted",
                                 {std::string(kStats) + ": NVFS Driver(version) changed"}, "run again"));
    return w;
  }
  GdsWatchCounts c = compare_nvfs_stats(b, a);
  w.counts = c;
  if (!c.went_down.empty()) {
    w.findings.push_back(
        unknown("the nvidia-fs counters went down during the run: they were reset (a write to " + std::string(kStats) +
                    ") or nvidia-fs was reloaded, so the difference proves nothing",
                {std::string(kStats) + ": " + join(c.went_down, ", ")}, "run again without resetting the counters"));
    return w;
  }

  bool printed_before = b.value("Reads", "n") && b.value("Writes", "n");
  bool printed_after = a.value("Reads", "n") && a.value("Writes", "n");
  bool io_errors = std::any_of(c.errors_rose.begin(), c.errors_rose.end(), [](const auto& e) {
    return e.first.starts_with("Reads") || e.first.starts_with("Writes");
  });
  bool command_failed = !in.run.succeeded();
  std::optional<Status> errors_status;
  if (!c.errors_rose.empty()) errors_status = Status::Warning;

  if (!printed_after) {
    w.findings.push_back(rw_stats_off(in, b, a, c));
  } else if (!printed_before) {
    w.findings.push_back(
        unknown("the nvidia-fs read/write counters were switched on during the run: the "
                "difference proves nothing",
                {in.rw_stats_enabled.evidence()}, "run again now that they are on"));
  } else if (!c.reads || !c.writes || !c.reads_ok || !c.writes_ok) {
    w.findings.push_back(unknown("the nvidia-fs read/write counters are not numbers nvidia-fs prints",
                                 {group_change(b, a, "Reads"), group_change(b, a, "Writes")},
                                 std::string("check ") + kStats));
  } else if (*c.reads_ok + *c.writes_ok > 0) {
    std::vector<std::string> crossing;
    std::vector<std::string> ev = lines({group_change(b, a, "Reads"), group_change(b, a, "Writes")});
    if (c.batches && *c.batches > 0) ev.push_back(group_change(b, a, "Batches"));
    ev.push_back("the command: " + printable(in.run.describe()));
    auto gpus = gpu_evidence(a.gpus, crossing);
    ev.insert(ev.end(), gpus.begin(), gpus.end());
    ev.push_back(kNodeWide);
    std::string summary = "direct path: " + mib_text(c.read_mib, c.reads_ok) + " read, " +
                          mib_text(c.write_mib, c.writes_ok) + " written through nvidia-fs (" + n(*c.reads_ok) +
                          " reads, " + n(*c.writes_ok) + " writes completed)";
    if (!crossing.empty())
      summary +=
          "; peer DMA crossed PCIe root ports (a slower path, cross_root_port since the counters were "
          "last reset): " +
          join(crossing, ", ");
    w.findings.push_back(ok("gds.watch", "host", summary, ev));
  } else {
    // Nothing completed through nvidia-fs. Every read or write it took
    // failing, while the command failed too, is the one case the counters
    // decide: the direct path was tried and broke.
    if (io_errors && command_failed && *c.reads + *c.writes > 0) errors_status = Status::Critical;
    std::string summary = "no read or write completed through nvidia-fs while " + cmd + " ran";
    if (*c.reads + *c.writes > 0)
      summary += ": " + n(*c.reads + *c.writes) + " were submitted and none completed";
    else if (c.bar1_maps && *c.bar1_maps > 0)
      summary += ": cuFile mapped GPU memory through nvidia-fs (Bar1-map +" + n(*c.bar1_maps) +
                 ") but no I/O went through it; the I/O went through compat mode (host memory), took a route "
                 "nvidia-fs does not carry (PCI-P2PDMA, user-space RDMA), or failed";
    else
      summary +=
          ": either its I/O went through compat mode (host memory) or a route nvidia-fs does not carry "
          "(PCI-P2PDMA, user-space RDMA), or it did no cuFile I/O at all";
    w.findings.push_back(
        problem("gds.watch", "host", Status::Warning, summary,
                lines({group_change(b, a, "Reads"), group_change(b, a, "Writes"), group_change(b, a, "Bar1-map"),
                       "the command: " + printable(in.run.describe()), kNodeWide}),
                kWhatDecides));
  }

  if (errors_status) {
    std::vector<std::string> rose;
    for (const auto& [name, by] : c.errors_rose) rose.push_back(name + " +" + n(by));
    std::string summary = "nvidia-fs error counters rose during the run: " + join(rose, ", ");
    if (*errors_status == Status::Critical)
      summary += "; no read or write completed and the command failed: the direct path was tried and failed";
    w.findings.push_back(problem("gds.watch", "errors", *errors_status, summary,
                                 {std::string(kStats) + ": " + join(rose, ", "),
                                  "the counters are node-wide: errors of other processes in the same window count too",
                                  "the command: " + printable(in.run.describe())},
                                 "the kernel log (dmesg | grep nvidia-fs) and the cuFile log (cufile.log) say which "
                                 "I/O failed and why"));
  }
  return w;
}

}  // namespace gdrcheck
