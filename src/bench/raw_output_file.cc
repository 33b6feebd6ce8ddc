#include "bench/raw_output_file.h"

#include <sys/stat.h>

#include <ctime>

namespace gdrcheck {
namespace {

std::string safe_word(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
  return out;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

std::string raw_output_name(const std::string& dir, const std::string& host, std::chrono::system_clock::time_point when,
                            long pid, const std::string& label) {
  std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  ::gmtime_r(&t, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::string base = dir.empty() ? "." : dir;
  if (base.back() != '/') base += '/';
  return base + "gdrcheck-bench-" + safe_word(host) + "-" + stamp + "-" + std::to_string(pid) +
         (label.empty() ? "" : "-" + safe_word(label)) + ".log";
}

std::string fresh_raw_output_path(const std::string& dir, const std::string& host,
                                  std::chrono::system_clock::time_point when, long pid, const std::string& label) {
  std::string name = raw_output_name(dir, host, when, pid, label);
  if (!exists(name)) return name;
  std::string stem = name.substr(0, name.size() - 4);
  for (int i = 2;; ++i) {
    std::string candidate = stem + "-" + std::to_string(i) + ".log";
    if (!exists(candidate)) return candidate;
  }
}

}  // namespace gdrcheck
