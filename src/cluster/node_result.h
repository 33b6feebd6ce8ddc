// What came back from one host of a cluster run, before it is understood.
// Launchers (srun, pdsh, ssh) and `--from DIR` produce these; the cluster
// model (cluster/cluster_model.h) reads the reports out of them. Keeping
// the raw stdout here is what lets `--save DIR` keep everything that came
// back, whatever its state.
#pragma once

#include <string>

namespace gdrcheck {

struct NodeOutcome {
  // Report: the remote gdrcheck exited 0..3 and printed something (not yet
  // validated). Unreachable: the launcher could not reach the host.
  // TimedOut: no answer within the per-host timeout. Crashed: killed by a
  // signal. Failed: any other exit status. NotAReport: something came back
  // that is not a gdrcheck.node/1 report (set by whoever validated it).
  // WrongHost: a report that claims to be of another host than the one
  // asked (set by the cluster model; never drained under either name).
  enum class How { Report, Unreachable, TimedOut, Crashed, Failed, NotAReport, WrongHost, NotSchedulable };

  // The node as it was addressed: the host the launcher reached (from the
  // operator's host list, host file or Slurm), or with --from the report's
  // file name without ".json". Never the "host" a report claims.
  std::string host;
  How how = How::Report;
  std::string raw;     // stdout exactly as received (saved by --save), may be empty
  std::string reason;  // "ssh: connect to host ... Connection refused", "timed out after 30 s", ...
  int exit_code = -1;  // the remote gdrcheck's exit code when known (0-3 are normal node results)
};

// "report", "unreachable", "timed out", "crashed", "failed", "not a report",
// "wrong host", "not schedulable".
inline const char* how_name(NodeOutcome::How how) {
  switch (how) {
    case NodeOutcome::How::Report:
      return "report";
    case NodeOutcome::How::Unreachable:
      return "unreachable";
    case NodeOutcome::How::TimedOut:
      return "timed out";
    case NodeOutcome::How::Crashed:
      return "crashed";
    case NodeOutcome::How::Failed:
      return "failed";
    case NodeOutcome::How::NotAReport:
      return "not a report";
    case NodeOutcome::How::WrongHost:
      return "wrong host";
    case NodeOutcome::How::NotSchedulable:
      return "not schedulable";
  }
  return "unknown";
}

}  // namespace gdrcheck
