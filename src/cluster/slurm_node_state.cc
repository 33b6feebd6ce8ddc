#include "cluster/slurm_node_state.h"

namespace gdrcheck {

std::vector<std::string> slurm_show_command(const std::vector<std::string>& nodes, const std::string& scontrol) {
  std::string list;
  for (const auto& n : nodes) list += (list.empty() ? "" : ",") + n;
  return {scontrol, "-o", "show", "node", list};
}
namespace {

// The value of " KEY=" (or "KEY=" at the start) up to the next space, in
// `fields`; "" when absent.
std::string field(std::string_view fields, std::string_view key) {
  std::string needle = " " + std::string(key) + "=";
  std::size_t at = fields.rfind(needle.substr(1), 0) == 0 ? 0 : fields.find(needle);
  if (at == std::string_view::npos) return "";
  std::size_t start = at + needle.size() - (at == 0 ? 1 : 0);
  std::size_t end = fields.find(' ', start);
  return std::string(fields.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

// Slurm appends " [user@time]" to the reason it prints; the reason itself
// may hold brackets, so only a last bracket group holding '@' is cut.
std::string reason_text(std::string_view value) {
  while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
  if (!value.empty() && value.back() == ']') {
    std::size_t open = value.rfind(" [");
    if (open != std::string_view::npos && value.find('@', open) != std::string_view::npos)
      value = value.substr(0, open);
  }
  return std::string(value);
}

// Fields that scontrol may print after the reason (Slurm 22.05 and later).
std::string_view reason_value(std::string_view rest) {
  for (std::string_view next : {" Comment=", " Extra=", " ResumeAfterTime="}) {
    // Only after the "[user@time]" group: a reason may itself say "Comment=".
    std::size_t stamp = rest.find("@");
    std::size_t at = rest.find(next, stamp == std::string_view::npos ? 0 : stamp);
    if (at != std::string_view::npos) rest = rest.substr(0, at);
  }
  return rest;
}

}  // namespace

bool SlurmNodeState::drained_by_gdrcheck() const {
  return drain && reason.rfind(kDrainReasonPrefix, 0) == 0;
}

SlurmNodeState parse_slurm_node_line(std::string_view line) {
  SlurmNodeState s;
  // A line as scontrol prints it ends in a newline (and Reason is its last
  // field): the line end is not part of the reason.
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.rfind("NodeName=", 0) != 0) return s;
  // Everything before " Reason=" is Slurm's; the reason is free text that
  // anyone with scontrol may set, so no field is looked for inside it.
  std::size_t r = line.find(" Reason=");
  std::string_view fields = line.substr(0, r);
  s.name = field(fields, "NodeName");
  s.state = field(fields, "State");
  std::size_t start = 0;
  while (start <= s.state.size()) {
    std::size_t plus = s.state.find('+', start);
    if (plus == std::string::npos) plus = s.state.size();
    if (s.state.compare(start, plus - start, "DRAIN") == 0) s.drain = true;
    start = plus + 1;
  }
  if (r != std::string_view::npos) s.reason = reason_text(reason_value(line.substr(r + 8)));
  return s;
}

std::map<std::string, SlurmNodeState> parse_slurm_nodes(std::string_view output) {
  std::map<std::string, SlurmNodeState> nodes;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    SlurmNodeState s = parse_slurm_node_line(output.substr(start, end - start));
    if (!s.name.empty()) nodes.emplace(s.name, std::move(s));
    start = end + 1;
  }
  return nodes;
}

}  // namespace gdrcheck
