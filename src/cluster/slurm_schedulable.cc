#include "cluster/slurm_schedulable.h"

#include <array>
#include <string_view>

namespace gdrcheck {
namespace {

// scontrol's State is "BASE+FLAG+FLAG"; sinfo's suffixes (*, ~, #, !, %, $,
// @, ^, -) may appear on a base state in some versions.
constexpr std::array<std::string_view, 14> kNoNewJobs = {
    "DOWN",           "DRAIN",        "DRAINED",    "DRAINING",      "FAIL",  "FAILING",     "FUTURE",
    "NOT_RESPONDING", "POWERED_DOWN", "POWER_DOWN", "POWERING_DOWN", "INVAL", "INVALID_REG", "UNKNOWN"};

std::string_view without_suffix(std::string_view word) {
  while (!word.empty() && std::string_view("*~#!%$@^-").find(word.back()) != std::string_view::npos)
    word.remove_suffix(1);
  return word;
}

std::string not_scheduled_reason(const SlurmNodeState& node) {
  std::string why = "Slurm shows State=" + node.state;
  if (!node.reason.empty()) why += ", Reason='" + node.reason + "'";
  return why + ": Slurm starts no job there, so srun could not run gdrcheck and it was not checked; check it over " +
         "ssh or pdsh (gdrcheck cluster --ssh " + node.name +
         ", with --resume to bring it back when it passes) or let the health check do it (docs/health-checks.md)";
}

}  // namespace

bool takes_new_jobs(const SlurmNodeState& node) {
  std::string_view state = node.state;
  while (!state.empty()) {
    std::size_t plus = state.find('+');
    std::string_view word = without_suffix(state.substr(0, plus));
    for (std::string_view no : kNoNewJobs)
      if (word == no) return false;
    if (plus == std::string_view::npos) break;
    state.remove_prefix(plus + 1);
  }
  return !node.drain;
}

SchedulableSplit split_schedulable(const std::vector<std::string>& nodes,
                                   const std::map<std::string, SlurmNodeState>& slurm) {
  SchedulableSplit split;
  for (const auto& name : nodes) {
    auto it = slurm.find(name);
    if (it == slurm.end() || takes_new_jobs(it->second)) {
      split.runnable.push_back(name);
      continue;
    }
    NodeOutcome skipped;
    skipped.host = name;
    skipped.how = NodeOutcome::How::NotSchedulable;
    skipped.reason = not_scheduled_reason(it->second);
    split.skipped.push_back(std::move(skipped));
  }
  return split;
}

}  // namespace gdrcheck
