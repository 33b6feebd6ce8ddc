// Slurm/pdsh host lists: "gpu[01-04,07],login1" -> gpu01 gpu02 gpu03 gpu04
// gpu07 login1. Needed to know which hosts a pdsh or srun run should have
// reached, so that a host that printed nothing is still listed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gdrcheck {

// Expands a comma-separated list whose items may hold bracketed ranges
// ("n[1-3]", "n[01-10,15]", "r[1-2]n[1-2]"); zero padding is kept. Order
// is the list's order; duplicates are dropped. Throws std::invalid_argument
// naming the problem for unbalanced brackets, bad or reversed ranges, names
// longer than 255 bytes, and lists that name more than 1,000,000 hosts
// (duplicates counted): the count is made before any name is.
std::vector<std::string> expand_hostlist(const std::string& list);

// How many names the list makes, duplicates counted, without making them;
// 1,000,001 stands for any number past the cap. Throws as expand_hostlist.
std::size_t count_hostlist(const std::string& list);

// The list's items, split at commas outside brackets, not expanded
// ("gpu[01-04],login1" -> "gpu[01-04]" "login1"). Throws
// std::invalid_argument for unbalanced brackets.
std::vector<std::string> split_hostlist(const std::string& list);

// The inverse of expand_hostlist, for people: "gpu001" ... "gpu064",
// "login1" -> "gpu[001-064],login1". Names are grouped by the text before
// and after their last run of digits and by its zero padding ("gpu07" and
// "gpu7" stay apart, so expanding the result gives the names back);
// groups keep the order of their first name, numbers in a group are
// sorted, duplicates dropped. A name holding '[', ']' or ',' is kept as
// one item of its own, as is.
std::string fold_hostlist(const std::vector<std::string>& hosts);
// fold_hostlist's items, before they are joined with ','.
std::vector<std::string> fold_hostlist_items(const std::vector<std::string>& hosts);

}  // namespace gdrcheck
