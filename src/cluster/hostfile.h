// Host files for `gdrcheck cluster --hostfile FILE`: one host per line, the
// form operators already keep for pdsh, mpirun and clush.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

// The hosts of a host file's text, in order, duplicates dropped. Per line:
// text after '#' is a comment, blank lines are skipped, the first word is
// the host and the rest is ignored (so Open MPI's "gpu01 slots=8" works),
// and a word with brackets is a host list ("gpu[01-08]", expand_hostlist).
// Throws std::invalid_argument naming the line for a bad host list or a
// word that would be read as an option ("-x"), and when no host is left.
std::vector<std::string> parse_hostfile(std::string_view text);

}  // namespace gdrcheck
