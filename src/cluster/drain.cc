#include "cluster/drain.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_set>

#include "cluster/node_name.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxReason = 160;

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

// At most `size` bytes, backing off to the start of a UTF-8 character.
std::string cut(const std::string& text, std::size_t size) {
  if (text.size() <= size) return text;
  while (size > 0 && (static_cast<unsigned char>(text[size]) & 0xC0) == 0x80) --size;
  return text.substr(0, size);
}

}  // namespace

std::string drain_reason(const ClusterNode& node) {
  std::string reason = one_line("gdrcheck: " + node.main_problem());
  std::size_t more = node.problems.size() > 1 ? node.problems.size() - 1 : 0;
  std::string tail = more ? " (+" + std::to_string(more) + " more)" : "";
  if (reason.size() + tail.size() > kMaxReason) reason = cut(reason, kMaxReason - tail.size() - 3) + "...";
  return reason + tail;
}

DrainPlan drain_plan(const ClusterModel& model, const std::string& scontrol) {
  DrainPlan plan;
  std::unordered_set<std::string> planned;
  for (const auto& n : model.nodes) {
    if (n.status != Status::Critical) continue;
    if (std::string why = plain_node_name_problem(n.host); !why.empty()) {
      plan.refused.push_back(visible_name(n.host) + ": CRITICAL, not drained: " + why);
      continue;
    }
    if (!n.claimed_host.empty()) {
      plan.refused.push_back(visible_name(n.host) + ": CRITICAL, not drained: its report names host '" +
                             visible_name(n.claimed_host) + "'; check which node it is and drain it by hand");
      continue;
    }
    // A node counted twice (two reports, one name) is drained once.
    if (!planned.insert(n.host).second) continue;
    plan.commands.push_back({scontrol, "update", "NodeName=" + n.host, "State=DRAIN", "Reason=" + drain_reason(n)});
  }
  return plan;
}

std::vector<Argv> drain_commands(const ClusterModel& model, const std::string& scontrol) {
  return drain_plan(model, scontrol).commands;
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
