#include "cluster/report_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "cluster/node_name.h"
#include "host/unique_fd.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string errno_message(int error) {
  return std::generic_category().message(error);
}

bool json_name(const std::string& name) {
  return name.size() >= 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

// The `*.json` names in the directory, sorted.
std::vector<std::string> json_names(const std::string& dir, int dir_fd) {
  int listing = ::dup(dir_fd);
  DIR* d = listing < 0 ? nullptr : ::fdopendir(listing);
  if (!d) {
    int error = errno;
    if (listing >= 0) ::close(listing);
    throw InputError(dir, errno_message(error));
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (json_name(name) && names.size() == kMaxReportFiles) {
      ::closedir(d);
      throw InputError(dir, "more than " + std::to_string(kMaxReportFiles) + " *.json files; not a report directory");
    }
    if (json_name(name)) names.push_back(std::move(name));
  }
  int error = errno;
  ::closedir(d);
  if (error) throw InputError(dir, errno_message(error));
  std::sort(names.begin(), names.end());
  return names;
}

// Reads the file to its end, at most kMaxReportBytes; "" when it worked.
std::string read_all(int fd, std::size_t size, std::string& content) {
  content.reserve(std::min(size, kMaxReportBytes) + 1);
  char buffer[1 << 16];
  while (content.size() <= kMaxReportBytes) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_message(errno);
    if (n == 0) return "";
    content.append(buffer, static_cast<std::size_t>(n));
  }
  content.clear();
  return "larger than 64 MiB, not a node report";
}

// The report in `name`, or why it is not read. The directory is often
// writable by others: O_NOFOLLOW refuses a planted link (to /etc/shadow,
// to a FIFO), O_NONBLOCK keeps a FIFO from blocking the open, and fstat
// on the open file decides, so nothing can be swapped in between.
std::string read_report(int dir_fd, const std::string& name, std::string& content) {
  int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return errno == ELOOP ? "a link; not followed" : errno_message(errno);
  UniqueFd file(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_message(errno);
  if (S_ISDIR(st.st_mode)) return "a directory, not a report";
  if (!S_ISREG(st.st_mode)) return "not a regular file; not read";
  if (static_cast<unsigned long long>(st.st_size) > kMaxReportBytes) return "larger than 64 MiB, not a node report";
  return read_all(fd, static_cast<std::size_t>(st.st_size), content);
}

NodeOutcome refused(std::string host, const std::string& path, const std::string& why) {
  NodeOutcome o;
  o.host = std::move(host);
  o.how = NodeOutcome::How::NotAReport;
  o.reason = path + ": " + why;
  return o;
}

}  // namespace

ReportDir read_report_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(dir, errno == ENOTDIR ? "not a directory" : errno_message(errno));
  UniqueFd dir_fd(fd);
  ReportDir out;
  std::size_t total = 0;
  for (const std::string& name : json_names(dir, dir_fd.get())) {
    std::string host = name.substr(0, name.size() - 5);
    std::string path = dir + "/" + visible_name(name);
    out.files.push_back(path);
    // The file name names the node that is drained: it must be one node.
    if (std::string why = plain_node_name_problem(host); !why.empty()) {
      out.outcomes.push_back(refused(host, path, "node name '" + visible_name(host) + "': " + why + "; not read"));
      continue;
    }
    if (total >= kMaxReportDirBytes) {
      out.outcomes.push_back(refused(host, path, "not read: the reports before it already hold 8 GiB"));
      continue;
    }
    NodeOutcome o;
    o.host = host;
    if (std::string why = read_report(dir_fd.get(), name, o.raw); !why.empty()) o = refused(host, path, why);
    total += o.raw.size();
    out.outcomes.push_back(std::move(o));
  }
  return out;
}

}  // namespace gdrcheck
