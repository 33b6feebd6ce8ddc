// Node names the cluster view may act on. A name that reaches
// `scontrol update NodeName=...` must be one plain Slurm node name: Slurm
// reads that argument as a host list ("gpu[00-99]", "a,b") and knows the
// keyword ALL, so anything else there drains more nodes than meant. And a
// report's own "host" is only a claim: the node is the one the launcher
// addressed (or, with --from, the one its file is named after).
#pragma once

#include <string>
#include <string_view>

namespace gdrcheck {

// "" when `name` is one plain node name: [A-Za-z0-9][A-Za-z0-9._-]{0,62},
// and not a Slurm keyword (ALL, DEFAULT, in any case). Otherwise why not,
// e.g. "a host list, not one node name".
std::string plain_node_name_problem(std::string_view name);

inline bool plain_node_name(std::string_view name) {
  return plain_node_name_problem(name).empty();
}

// Whether a report claiming `claimed` can be the answer of the host
// addressed as `addressed`: the same name, or the same first label
// ("gpu07" and "gpu07.cluster.example", not "10" of two IPv4 addresses),
// ignoring case as DNS does.
bool same_host(std::string_view claimed, std::string_view addressed);

// A name from a report or a file name, for messages: control bytes as
// \xNN, at most 200 bytes then "...".
std::string visible_name(std::string_view name);

}  // namespace gdrcheck
