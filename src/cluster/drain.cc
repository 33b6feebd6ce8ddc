#include "cluster/drain.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "cluster/node_name.h"
#include "text/utf8_prefix.h"

namespace gdrcheck {
namespace {

bool plain(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("@%+=:,./_-").find(c) != std::string::npos;
}

bool control(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

// The reason comes from a report: scontrol keeps it on one line and `sinfo
// -R` prints it to terminals, so control bytes become spaces.
std::string one_line(std::string text) {
  for (char& c : text)
    if (control(c)) c = ' ';
  return text;
}

}  // namespace

std::string drain_reason(const ClusterNode& node) {
  std::vector<std::string> ids;  // node.checks is a sorted map: ids come sorted
  for (const auto& [id, status] : node.checks)
    if (status == Status::Critical) ids.push_back(one_line(id));
  if (ids.empty()) ids.push_back("node");
  const std::string head = "gdrcheck: ", tail = " CRITICAL";
  // Whole ids only, so a cut reason still names real checks; "+N" counts
  // the ones left out.
  std::string list;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::string with = list + (list.empty() ? "" : ",") + ids[i];
    // Room is kept for ",+N" while ids remain after this one.
    std::string left = i + 1 < ids.size() ? ",+" + std::to_string(ids.size() - i - 1) : "";
    if (head.size() + with.size() + left.size() + tail.size() > kMaxDrainReasonBytes) {
      list += (list.empty() ? "+" : ",+") + std::to_string(ids.size() - i);
      break;
    }
    list = with;
  }
  return std::string(utf8_prefix(head + list + tail, kMaxDrainReasonBytes));
}

DrainPlan drain_plan(const ClusterModel& model, const DrainPolicy& policy) {
  DrainPlan plan;
  std::unordered_set<std::string> planned;
  auto refuse = [&](const ClusterNode& n, const std::string& why) {
    plan.not_drained.push_back({n.host, n.generated_at, why});
    plan.refused.push_back(visible_name(n.host) + ": CRITICAL, not drained: " + why);
  };
  for (const auto& n : model.nodes) {
    if (n.status != Status::Critical) continue;
    if (std::string why = plain_node_name_problem(n.host); !why.empty()) {
      refuse(n, why);
      continue;
    }
    if (!n.claimed_host.empty()) {
      refuse(n, "its report names host '" + visible_name(n.claimed_host) +
                    "'; check which node it is and drain it by hand");
      continue;
    }
    // Old evidence says nothing about the node now.
    if (std::string why = staleness(n.generated_at, policy.now, policy.max_age_s, policy.max_age_text); !why.empty()) {
      refuse(n, why);
      continue;
    }
    // A node counted twice (two reports, one name) is drained once.
    if (!planned.insert(n.host).second) continue;
    plan.commands.push_back(
        {policy.scontrol, "update", "NodeName=" + n.host, "State=DRAIN", "Reason=" + drain_reason(n)});
    plan.hosts.push_back(n.host);
  }
  return plan;
}

std::vector<Argv> drain_commands(const ClusterModel& model, const DrainPolicy& policy) {
  return drain_plan(model, policy).commands;
}

std::vector<std::string> resume_candidates(const ClusterModel& model) {
  // A name with any report that is not OK (two reports of one node) is
  // not a node that passes.
  std::unordered_set<std::string> failing;
  for (const auto& n : model.nodes)
    if (n.status != Status::Ok || !n.has_report() || !n.claimed_host.empty()) failing.insert(n.host);
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  for (const auto& n : model.nodes) {
    if (failing.count(n.host) || !plain_node_name_problem(n.host).empty()) continue;
    if (seen.insert(n.host).second) hosts.push_back(n.host);
  }
  return hosts;
}

ResumePlan resume_plan(const ClusterModel& model, const std::map<std::string, SlurmNodeState>& slurm,
                       const DrainPolicy& policy) {
  ResumePlan plan;
  std::unordered_map<std::string, const ClusterNode*> by_host;
  for (const auto& n : model.nodes) by_host.emplace(n.host, &n);
  for (const auto& host : resume_candidates(model)) {
    auto s = slurm.find(host);
    if (s == slurm.end() || !s->second.drain) continue;
    if (!s->second.drained_by_gdrcheck()) {
      plan.others.push_back(visible_name(host) + ": OK, but drained in Slurm for '" + visible_name(s->second.reason) +
                            "', not by gdrcheck: not resumed");
      continue;
    }
    const ClusterNode& n = *by_host.at(host);
    if (std::string why = staleness(n.generated_at, policy.now, policy.max_age_s, policy.max_age_text); !why.empty()) {
      plan.not_resumed.push_back({host, n.generated_at, why});
      continue;
    }
    plan.commands.push_back({policy.scontrol, "update", "NodeName=" + host, "State=RESUME"});
    plan.hosts.push_back(host);
  }
  return plan;
}

std::string shell_word(const std::string& word) {
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
  return out + "'";
}

std::string shell_line(const Argv& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + shell_word(a);
  return out;
}

std::vector<ProcessResult> run_drain(const std::vector<Argv>& commands) {
  std::vector<ProcessResult> results;
  for (const auto& argv : commands) {
    ProcessSpec spec = ProcessSpec::command(argv);
    spec.timeout = std::chrono::seconds(30);
    results.push_back(run_process(spec));
  }
  return results;
}

}  // namespace gdrcheck
