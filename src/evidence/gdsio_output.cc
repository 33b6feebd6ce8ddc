// Reader for pasted gdsio output.
//
// gdsio prints one line per run with "Key: value" pairs; pasting loses
// what is not text: whitespace collapses, Markdown adds backticks and bold,
// a blog turns the comma into a full-width one, a terminal wraps the long
// line in two, and a post may keep only "Throughput: ..., Avg_Latency: ...".
// So the line is cut into words and each key is found wherever it is, and
// a result without its transfer type takes the -x of the command pasted
// just before it.
#include "evidence/gdsio_output.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "host/text_numbers.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxRuns = 4096;
constexpr std::size_t kMaxGdsioErrors = 256;
constexpr std::size_t kMaxGdsioNotes = 64;
constexpr std::size_t kMaxGdsioLine = 4096;
constexpr std::size_t kMaxTextKept = 512;  // of a command or error line

// Length of the separator at line[i], 0 if none: Markdown marks and the
// full-width comma of CJK text separate words, as do the commas gdsio
// prints, so only words are left.
std::size_t separator_length(std::string_view line, std::size_t i) {
  char c = line[i];
  if (c == '`' || c == '*' || c == ',' || ascii::is_space(c)) return 1;
  if (c == '\xEF' && line.substr(i, 3) == "\xEF\xBC\x8C") return 3;  // U+FF0C FULLWIDTH COMMA
  return 0;
}

// Words are cut from the line itself: a cleaned copy made a byte at a time
// cost more than the rest of the reading.
std::vector<std::string> words_between_separators(std::string_view line) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < line.size();) {
    if (std::size_t n = separator_length(line, i)) {
      i += n;
      continue;
    }
    std::size_t j = i + 1;
    while (j < line.size() && separator_length(line, j) == 0) ++j;
    out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string cut_to_kept(std::string_view s) {
  return std::string(s.substr(0, kMaxTextKept));
}

const char* const kIoTypes[] = {"READ", "WRITE", "RANDREAD", "RANDWRITE"};

struct Command {
  std::string text, xfer, io_type;
};

// "gdsio -f /mnt/x -d 0 -w 1 -s 1G -x 0 -I 0 -T 10", after any prompt, path
// or backtick. Options are read as getopt would: the last one counts, and
// "-x0" equals "-x 0". A value gdsio would not take leaves the field empty.
std::optional<Command> parse_command(std::string_view line, const std::vector<std::string>& w) {
  std::size_t at = w.size();
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w[i] == "gdsio" || (w[i].size() > 6 && w[i].ends_with("/gdsio"))) {
      at = i;
      break;
    }
  if (at == w.size()) return std::nullopt;
  Command c;
  bool options = false;
  std::optional<std::string> x, io;
  for (std::size_t i = at + 1; i < w.size(); ++i) {
    const std::string& t = w[i];
    if (t.size() < 2 || t[0] != '-') continue;
    options = true;
    if (t[1] != 'x' && t[1] != 'I') continue;
    std::string value = t.size() > 2 ? t.substr(2) : (i + 1 < w.size() ? w[i + 1] : "");
    (t[1] == 'x' ? x : io) = value;
  }
  if (!options) return std::nullopt;  // prose that names gdsio
  c.text = cut_to_kept(ascii::trim(line));
  if (x)
    if (auto n = whole_number<long>(*x)) c.xfer = gdsio_xfer_name(*n);
  if (io)
    if (auto n = whole_number<long>(*io); n && *n >= 0 && *n <= 3) c.io_type = kIoTypes[*n];
  return c;
}

// "GiB/sec" → 1, "MiB/sec" → 1/1024, "GB/s" → 1e9/2^30; nullopt when unknown.
std::optional<double> to_gib(std::string_view unit) {
  std::string u = ascii::lower(unit);
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (u.starts_with("gib")) return 1.0;
  if (u.starts_with("mib")) return 1.0 / 1024.0;
  if (u.starts_with("kib")) return 1.0 / (1024.0 * 1024.0);
  if (u.starts_with("gb")) return 1e9 / kGiB;
  if (u.starts_with("mb")) return 1e6 / kGiB;
  if (u.starts_with("kb")) return 1e3 / kGiB;
  return std::nullopt;
}

std::optional<double> non_negative(std::optional<double> v) {
  if (v && *v < 0) return std::nullopt;
  return v;
}

// The fields of one result line (or of the half of a wrapped one).
struct Fields {
  GdsioRun run;
  bool head = false;  // IoType or XferType
  bool tail = false;  // Throughput or Avg_Latency
};

// "16117760/10485760(KiB)": done and requested, in KiB.
void dataset(std::string_view v, GdsioRun& r) {
  if (!ascii::contains(ascii::lower(v), "(kib)")) return;
  std::size_t slash = v.find('/');
  r.dataset_kib = leading_number<std::uint64_t>(v);
  if (slash != std::string_view::npos) r.requested_kib = leading_number<std::uint64_t>(v.substr(slash + 1));
}

Fields parse_fields(const std::vector<std::string>& w) {
  Fields f;
  GdsioRun& r = f.run;
  const char* const keys[] = {"IoType:", "XferType:",   "Threads:", "IoDepth:",   "DataSetSize:",
                              "IOSize:", "Throughput:", "ops:",     "total_time", "Avg_Latency:"};
  for (std::size_t i = 0; i < w.size(); ++i) {
    const char* key = nullptr;
    for (const char* k : keys)
      if (w[i].starts_with(k)) {
        key = k;
        break;
      }
    if (!key) continue;
    std::string_view k(key);
    std::string value = w[i].substr(k.size());
    if (value.empty() && i + 1 < w.size()) value = w[++i];
    auto next_word = [&]() -> std::string {
      if (i + 1 >= w.size()) return "";
      for (const char* other : keys)
        if (w[i + 1].starts_with(other)) return "";
      return w[++i];
    };
    if (k == "IoType:") {
      r.io_type = cut_to_kept(value);
      f.head = true;
    } else if (k == "XferType:") {
      r.xfer_type = cut_to_kept(value);
      f.head = true;
    } else if (k == "Threads:") {
      r.threads = whole_number<long>(value);
    } else if (k == "IoDepth:") {
      r.io_depth = whole_number<long>(value);
    } else if (k == "DataSetSize:") {
      dataset(value, r);
    } else if (k == "IOSize:") {
      r.io_size = cut_to_kept(value);
      std::size_t paren = value.find('(');
      if (paren != std::string::npos && ascii::lower(value.substr(paren)) == "(kib)")
        r.io_size_kib = whole_number<std::uint64_t>(std::string_view(value).substr(0, paren));
    } else if (k == "Throughput:") {
      f.tail = true;
      // "3.5GiB/sec" glued or "3.5 GiB/sec": the unit starts where the
      // number's text ends, even when the number itself is out of range.
      double x = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
      std::optional<double> n;
      if (ec == std::errc() && std::isfinite(x) && x >= 0) n = x;
      std::string unit(std::string_view(value).substr(static_cast<std::size_t>(end - value.data())));
      if (unit.empty()) unit = next_word();
      r.throughput_unit = cut_to_kept(unit);
      if (auto scale = to_gib(unit); n && scale) r.throughput_gib_s = *n * *scale;
    } else if (k == "Avg_Latency:") {
      f.tail = true;
      auto n = non_negative(leading_number<double>(value));
      std::string unit = ascii::lower(next_word());
      double scale = unit.starts_with("ms") ? 1000.0 : (unit == "s" || unit == "sec" || unit == "secs") ? 1e6 : 1.0;
      if (n) r.avg_latency_us = *n * scale;
    } else if (k == "ops:") {
      r.ops = whole_number<std::uint64_t>(value);
    } else if (k == "total_time") {
      r.total_time_s = non_negative(leading_number<double>(value));
      next_word();  // "secs"
    }
  }
  return f;
}

class GdsioReader {
 public:
  void line(std::string_view raw);
  GdsioReport finish();

 private:
  void finish_run(GdsioRun run);
  void note(std::string text) {
    if (r_.notes.size() < kMaxGdsioNotes) r_.notes.push_back(std::move(text));
  }

  GdsioReport r_;
  std::optional<Command> command_;
  std::optional<GdsioRun> partial_;  // a result whose throughput is on the next line
};

// A command's -x and -I fill in what the result does not print; it is used
// by the one result after it, so a later fragment pasted without its own
// command is not credited with an earlier run's transfer type.
void GdsioReader::finish_run(GdsioRun run) {
  if (command_) {
    run.command = command_->text;
    if (run.xfer_type.empty() && !command_->xfer.empty()) {
      run.xfer_type = command_->xfer;
      run.xfer_from_command = true;
    } else if (!run.xfer_type.empty() && !command_->xfer.empty() && run.xfer_type != command_->xfer &&
               !(run.xfer_type == "GPUD" && command_->xfer == "GPU_DIRECT_ASYNC")) {
      note("line " + std::to_string(run.line) + ": the result says XferType " + run.xfer_type +
           " but the command before it asks for " + command_->xfer + " (runs pasted out of order?)");
    }
    if (run.io_type.empty()) run.io_type = command_->io_type;
    command_.reset();
  }
  if (run.xfer_type.empty())
    note("line " + std::to_string(run.line) +
         ": the transfer type is not shown (no XferType and no gdsio -x command before it)");
  if (!run.throughput_gib_s && !run.throughput_unit.empty())
    note("line " + std::to_string(run.line) + ": throughput unit '" + run.throughput_unit + "' not understood");
  if (r_.runs.size() < kMaxRuns) r_.runs.push_back(std::move(run));
}

void GdsioReader::line(std::string_view raw) {
  ++r_.lines;
  if (raw.size() > kMaxGdsioLine) raw = raw.substr(0, kMaxGdsioLine);
  std::vector<std::string> w = words_between_separators(raw);
  if (w.empty()) return;
  if (auto c = parse_command(raw, w)) {
    ++r_.commands;
    command_ = std::move(c);
    return;
  }
  std::string l = ascii::lower(ascii::trim(raw));
  bool is_result = false;
  for (const auto& word : w)
    if (word.starts_with("IoType:") || word.starts_with("XferType:") || word.starts_with("Throughput:") ||
        word.starts_with("Avg_Latency:"))
      is_result = true;
  if (!is_result) {
    if (ascii::contains(l, "io failed") || ascii::contains(l, "failed to submit io") || l.starts_with("error:")) {
      if (r_.errors.size() < kMaxGdsioErrors) r_.errors.push_back({r_.lines, cut_to_kept(ascii::trim(raw))});
    }
    return;
  }
  Fields f = parse_fields(w);
  f.run.line = r_.lines;
  if (partial_ && !f.head && f.tail) {  // the second half of a wrapped line
    GdsioRun& p = *partial_;
    GdsioRun& s = f.run;
    if (!p.threads) p.threads = s.threads;
    if (!p.io_depth) p.io_depth = s.io_depth;
    if (!p.dataset_kib) p.dataset_kib = s.dataset_kib, p.requested_kib = s.requested_kib;
    if (p.io_size.empty()) p.io_size = s.io_size, p.io_size_kib = s.io_size_kib;
    p.throughput_gib_s = s.throughput_gib_s;
    p.throughput_unit = s.throughput_unit;
    p.avg_latency_us = s.avg_latency_us;
    p.ops = s.ops;
    p.total_time_s = s.total_time_s;
    GdsioRun merged = std::move(p);
    partial_.reset();
    finish_run(std::move(merged));
    return;
  }
  if (partial_) {
    note("line " + std::to_string(partial_->line) + ": a result without its throughput (the line is cut)");
    GdsioRun cut_run = std::move(*partial_);
    partial_.reset();
    finish_run(std::move(cut_run));
  }
  if (f.tail)
    finish_run(std::move(f.run));
  else
    partial_ = std::move(f.run);
}

GdsioReport GdsioReader::finish() {
  if (partial_) {
    note("line " + std::to_string(partial_->line) + ": a result without its throughput (the line is cut)");
    GdsioRun last = std::move(*partial_);
    partial_.reset();
    finish_run(std::move(last));
  }
  if (r_.runs.empty() && r_.errors.empty()) note("no gdsio result or error line found");
  return std::move(r_);
}

}  // namespace

GdsioXferClass gdsio_xfer_class(std::string_view x) {
  if (x == "GPUD" || x == "GPU_DIRECT" || x == "GPUD_ASYNC" || x == "GPU_DIRECT_ASYNC" || x == "GPU_BATCH" ||
      x == "GPU_BATCH_STREAM" || x == "ASYNC")
    return GdsioXferClass::Direct;
  if (x == "CPUONLY" || x == "CPU_ONLY" || x == "CPU_GPU" || x == "CPU_ASYNC_GPU" || x == "CPU_CACHED_GPU")
    return GdsioXferClass::CpuStaged;
  return GdsioXferClass::Unknown;
}

const char* gdsio_xfer_class_name(GdsioXferClass c) {
  switch (c) {
    case GdsioXferClass::Direct:
      return "direct";
    case GdsioXferClass::CpuStaged:
      return "cpu_staged";
    case GdsioXferClass::Unknown:
      return "unknown";
  }
  return "unknown";
}

// gdsio's own help: 0 Storage->GPU (GDS), 1 Storage->CPU, 2
// Storage->CPU->GPU, 3 Storage->CPU->GPU_ASYNC, 4
// Storage->PAGE_CACHE->CPU->GPU, 5 Storage->GPU_ASYNC, 6 Storage->GPU_BATCH,
// 7 Storage->GPU_BATCH_STREAM.
const char* gdsio_xfer_meaning(std::string_view x) {
  if (x == "GPUD" || x == "GPU_DIRECT") return "storage to GPU memory through cuFile (GPUDirect Storage)";
  if (x == "GPUD_ASYNC" || x == "GPU_DIRECT_ASYNC" || x == "ASYNC")
    return "storage to GPU memory through cuFile's stream (async) API";
  if (x == "GPU_BATCH") return "storage to GPU memory through cuFile's batch API";
  if (x == "GPU_BATCH_STREAM") return "storage to GPU memory through cuFile's batch API on a stream";
  if (x == "CPUONLY" || x == "CPU_ONLY") return "storage to host memory only; no GPU involved";
  if (x == "CPU_GPU") return "storage to host memory, then copied to the GPU";
  if (x == "CPU_ASYNC_GPU") return "storage to host memory, then copied to the GPU asynchronously";
  if (x == "CPU_CACHED_GPU") return "storage through the page cache to host memory, then to the GPU";
  return "";
}

std::string gdsio_xfer_name(long x) {
  const char* names[] = {"GPUD",           "CPUONLY",          "CPU_GPU",   "CPU_ASYNC_GPU",
                         "CPU_CACHED_GPU", "GPU_DIRECT_ASYNC", "GPU_BATCH", "GPU_BATCH_STREAM"};
  if (x < 0 || x > 7) return "";
  return names[x];
}

GdsioReport parse_gdsio_output(std::string_view text) {
  GdsioReader reader;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    reader.line(text.substr(start, end - start));
    start = end + 1;
  }
  return reader.finish();
}

bool looks_like_gdsio_output(std::string_view head) {
  std::size_t start = 0;
  while (start < head.size()) {
    std::size_t end = std::min(head.find('\n', start), head.size());
    std::string_view line = head.substr(start, std::min<std::size_t>(end - start, kMaxGdsioLine));
    start = end + 1;
    if (ascii::contains(line, "XferType:") ||
        (ascii::contains(line, "Throughput:") && ascii::contains(line, "Avg_Latency:")) ||
        ascii::contains(line, "IO failed stopping traffic") || ascii::contains(line, "failed to submit io of type"))
      return true;
  }
  return false;
}

}  // namespace gdrcheck
