// The folders the dynamic loader searches for a library named without a
// path, when LD_LIBRARY_PATH does not name it first: the folders listed in
// /etc/ld.so.conf.d/*.conf and /etc/ld.so.conf (ldconfig caches their
// libraries), then the loader's built-in folders. NCCL opens its net plugin
// by file name, so this search decides which plugin file a job gets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "host/root.h"

namespace gdrcheck {

// The absolute folders listed in one ld.so.conf-style text, in order:
// one per line, '#' starts a comment, trailing slashes dropped. "include"
// and "hwcap" lines, relative entries and entries with '*' or control
// characters are skipped.
std::vector<std::string> parse_ld_so_conf(std::string_view text);

// The folders a loader searches without LD_LIBRARY_PATH, as listed (not yet
// checked for existence): /etc/ld.so.conf.d/*.conf in name order (as
// ldconfig's include expands them), then those listed in /etc/ld.so.conf
// itself, then default_loader_folders(). Each folder once. Bounded: 64
// conf files of at most 64 KiB, 128 listed folders.
std::vector<std::string> loader_folders(const Root& root);

// The loader's built-in folders on Debian/Ubuntu (multiarch) and on
// RHEL-like systems (lib64), then the traditional ones.
const std::vector<std::string>& default_loader_folders();

}  // namespace gdrcheck
