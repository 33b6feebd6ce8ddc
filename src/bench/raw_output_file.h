// The file a bench run's whole raw output goes to: a name that says what and
// when, and never names a file that exists (the process runner also refuses
// to overwrite one, so a race is an error, not a loss).
#pragma once

#include <chrono>
#include <string>

namespace gdrcheck {

// "<dir>/gdrcheck-bench-<host>-<YYYYMMDDTHHMMSSZ>-<pid>-<label>.log"; the
// host is reduced to [A-Za-z0-9.-] so it cannot add a path component.
// Pure.
std::string raw_output_name(const std::string& dir, const std::string& host, std::chrono::system_clock::time_point when,
                            long pid, const std::string& label);

// raw_output_name, with "-2", "-3", ... added before ".log" while the name
// exists.
std::string fresh_raw_output_path(const std::string& dir, const std::string& host,
                                  std::chrono::system_clock::time_point when, long pid, const std::string& label);

}  // namespace gdrcheck
