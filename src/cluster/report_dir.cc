#include "cluster/report_dir.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "host/root.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

// A node report is a few tens of KiB; this only stops a stray huge file.
constexpr std::size_t kMaxReportBytes = 64u << 20;

std::vector<fs::path> json_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, ec ? ec.message() : "not a directory");
  fs::directory_iterator it(dir, ec);
  if (ec) throw InputError(dir, ec.message());
  std::vector<fs::path> files;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw InputError(dir, ec.message());
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

ReportDir read_report_dir(const std::string& dir) {
  ReportDir out;
  Root root("/");
  for (const fs::path& p : json_files(dir)) {
    std::string path = fs::absolute(p).string();
    NodeOutcome o;
    o.host = p.stem().string();
    FileRead r = root.read(path, kMaxReportBytes + 1);
    if (!r.ok()) {
      o.how = NodeOutcome::How::NotAReport;
      o.reason = p.string() + ": " + r.problem();
    } else if (r.content.size() > kMaxReportBytes) {
      o.how = NodeOutcome::How::NotAReport;
      o.reason = p.string() + ": larger than 64 MiB, not a node report";
    } else {
      o.raw = std::move(r.content);
    }
    out.outcomes.push_back(std::move(o));
    out.files.push_back(p.string());
  }
  return out;
}

}  // namespace gdrcheck
