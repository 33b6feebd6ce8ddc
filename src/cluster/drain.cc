#include "cluster/drain.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxReason = 160;

bool plain(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("@%+=:,./_-").find(c) != std::string::npos;
}

}  // namespace

std::string drain_reason(const ClusterNode& node) {
  std::string reason = "gdrcheck: " + node.main_problem();
  std::size_t more = node.problems.size() > 1 ? node.problems.size() - 1 : 0;
  std::string tail = more ? " (+" + std::to_string(more) + " more)" : "";
  if (reason.size() + tail.size() > kMaxReason) reason = reason.substr(0, kMaxReason - tail.size() - 3) + "...";
  // scontrol keeps the reason on one line.
  for (char& c : reason)
    if (c == '\n' || c == '\r') c = ' ';
  return reason + tail;
}

std::vector<Argv> drain_commands(const ClusterModel& model, const std::string& scontrol) {
  std::vector<Argv> out;
  for (const auto& n : model.nodes)
    if (n.status == Status::Critical)
      out.push_back({scontrol, "update", "NodeName=" + n.host, "State=DRAIN", "Reason=" + drain_reason(n)});
  return out;
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
