#include "cluster/report_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>

namespace gdrcheck {
namespace {

// Writes a new file only. "" on success, else the reason.
std::string write_new_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno == EEXIST ? "already exists; not overwritten" : std::strerror(errno);
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return "write failed: " + why;
    }
    done += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0 ? "" : std::string("close failed: ") + std::strerror(errno);
}

}  // namespace

std::string host_file_stem(const std::string& host) {
  std::string out = host;
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');
  return out;
}

SaveResult save_raw_outputs(const std::string& dir, const std::vector<NodeOutcome>& outcomes) {
  SaveResult result;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    result.problems.push_back(dir + ": " + ec.message());
    return result;
  }
  std::set<std::string> used;  // two hosts may map to one stem ("a/b", "a_b")
  for (const auto& o : outcomes) {
    if (o.raw.empty()) continue;
    std::string stem = host_file_stem(o.host), name = stem;
    for (int i = 2; !used.insert(name).second; ++i) name = stem + "-" + std::to_string(i);
    std::string path = (std::filesystem::path(dir) / (name + ".json")).string();
    std::string problem = write_new_file(path, o.raw);
    if (problem.empty())
      result.written.push_back(path);
    else
      result.problems.push_back(path + ": " + problem);
  }
  return result;
}

}  // namespace gdrcheck
