#include "host/nvidia_smi_outputs.h"

#include <string_view>
#include <utility>
#include <vector>

#include "host/process.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxReasonBytes = 160;

// "10 s", "250 ms".
std::string duration_text(std::chrono::milliseconds d) {
  auto ms = d.count();
  return ms >= 1000 && ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// The first non-blank line of a program's output, as a reason: control
// bytes dropped, at most kMaxReasonBytes.
std::string first_line(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line;
    for (char c : text.substr(start, end - start)) {
      auto u = static_cast<unsigned char>(c);
      if (line.size() >= kMaxReasonBytes) break;
      if (u >= 0x20 && u != 0x7f)
        line += c;
      else if (c == '\t')
        line += ' ';
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::size_t lead = line.find_first_not_of(' ');
    if (lead != std::string::npos) return line.substr(lead);
    start = end + 1;
  }
  return "";
}

CommandOutput from_capture(const Root& root, const char* path, const std::string& command, std::size_t max_bytes) {
  CommandOutput out;
  out.command = command;
  out.origin = path;
  FileRead r = root.read(path, max_bytes + 1);
  if (r.status == FileRead::Status::Missing) {
    out.missing = std::string("not captured (no ") + path + ")";
  } else if (!r.ok()) {
    out.missing = r.reason();
  } else if (r.content.size() > max_bytes) {
    out.missing = std::string(path) + " is larger than " + bytes_text(max_bytes) + "; not read";
  } else {
    out.text = std::move(r.content);
  }
  return out;
}

CommandOutput from_run(const std::string& program, const std::vector<std::string>& args, const std::string& command,
                       const NvidiaSmiOptions& o) {
  CommandOutput out;
  out.command = command;
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  out.origin = join(argv, " ");
  ProcessSpec spec = ProcessSpec::command(argv);
  spec.timeout = o.timeout;
  spec.kill_grace = std::chrono::milliseconds(1000);
  spec.output_limit = o.max_bytes;
  ProcessResult r = run_process(spec);
  if (r.end == ProcessResult::End::TimedOut) {
    out.missing = "timed out after " + duration_text(o.timeout);
  } else if (!r.succeeded()) {
    std::string why = first_line(r.err);
    if (why.empty()) why = first_line(r.out);
    out.missing = r.describe() + (why.empty() ? "" : ": " + why);
  } else if (r.out_truncated) {
    out.missing = "output larger than " + bytes_text(o.max_bytes) + "; not used";
  } else {
    out.text = std::move(r.out);
  }
  return out;
}

CommandOutput not_run(const std::string& command, const std::string& origin, const std::string& why) {
  CommandOutput out;
  out.command = command;
  out.origin = origin;
  out.missing = why;
  return out;
}

}  // namespace

std::string CommandOutput::describe() const {
  return ok() ? command + " from " + origin : command + ": " + missing;
}

NvidiaSmiOutputs read_nvidia_smi_outputs(const Root& root, const NvidiaSmiOptions& options) {
  const std::string topo = "nvidia-smi topo -m", nvlink = "nvidia-smi nvlink --status";
  NvidiaSmiOutputs out;
  if (!root.is_live()) {
    out.topo_matrix = from_capture(root, kTopoMatrixCapture, topo, options.max_bytes);
    out.nvlink_status = from_capture(root, kNvlinkStatusCapture, nvlink, options.max_bytes);
    return out;
  }
  std::string program = find_in_path(options.program);
  if (program.empty()) {
    std::string why = options.program.find('/') == std::string::npos ? options.program + " not found in PATH"
                                                                     : options.program + ": no such executable file";
    out.topo_matrix = not_run(topo, options.program, why);
    out.nvlink_status = not_run(nvlink, options.program, why);
    return out;
  }
  out.topo_matrix = from_run(program, {"topo", "-m"}, topo, options);
  // A driver that hangs one query hangs the next: do not wait twice.
  if (out.topo_matrix.missing.rfind("timed out", 0) == 0) {
    out.nvlink_status = not_run(nvlink, program, "not run: " + topo + " " + out.topo_matrix.missing);
    return out;
  }
  out.nvlink_status = from_run(program, {"nvlink", "--status"}, nvlink, options);
  return out;
}

}  // namespace gdrcheck
