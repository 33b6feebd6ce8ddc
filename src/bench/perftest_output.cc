#include "bench/perftest_output.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "bench/perftest_loose_json.h"
#include "evidence/log_scan.h"
#include "host/text_numbers.h"
#include "host/untrusted_json.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

std::vector<std::string_view> blank_separated_words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// " Dual-port       : OFF\t\tDevice         : mlx5_0": every "key : value"
// pair on the line (two per line in the header block).
void header_pairs(std::string_view line, PerftestReport& r) {
  std::size_t pos = 0;
  while (pos < line.size()) {
    std::size_t colon = line.find(':', pos);
    if (colon == std::string_view::npos) return;
    std::string_view key = scan::trim(line.substr(pos, colon - pos));
    std::size_t end = line.find('\t', colon);
    // Pasted through Markdown or a browser, the tabs between the two pairs
    // of a line are often spaces: the next pair's key then starts after the
    // last run of two spaces before the next colon.
    if (end == std::string_view::npos) {
      std::size_t next = line.find(':', colon + 1);
      if (next != std::string_view::npos) {
        std::size_t key_end = next;
        while (key_end > colon + 1 && line[key_end - 1] == ' ') --key_end;
        std::size_t gap = key_end > colon + 2 ? line.rfind("  ", key_end - 1) : std::string_view::npos;
        if (gap != std::string_view::npos && gap > colon) end = gap;
      }
    }
    std::string_view value =
        scan::trim(line.substr(colon + 1, end == std::string_view::npos ? std::string_view::npos : end - colon - 1));
    if (key == "Device") r.device = std::string(value);
    if (key == "Link type") r.link_type = std::string(value);
    if (key == "Number of qps") {
      if (auto q = whole_number<long>(value)) r.qps = static_cast<int>(*q);
    }
    if (end == std::string_view::npos) return;
    while (end < line.size() && (line[end] == '\t' || line[end] == ' ')) ++end;
    pos = end;
  }
}

std::optional<PerftestRow> table_row(std::string_view line) {
  auto w = blank_separated_words(line);
  if (w.size() < 4) return std::nullopt;
  auto bytes = whole_number<unsigned long long>(w[0]), iters = whole_number<unsigned long long>(w[1]);
  auto peak = whole_number<double>(w[2]), avg = whole_number<double>(w[3]);
  if (!bytes || !iters || !peak || !avg) return std::nullopt;
  PerftestRow row{*bytes, *iters, *peak, *avg, std::nullopt};
  if (w.size() >= 5) row.msg_rate_mpps = whole_number<double>(w[4]);
  return row;
}

// A count in the JSON file (message size, iterations, queue pairs), or
// nullopt when it is negative, fractional, not finite or above `max`:
// converting such a double to an integer is undefined, not just wrong.
template <class T>
std::optional<T> json_count(const nlohmann::json& v, T max = std::numeric_limits<T>::max()) {
  if (v.is_number_unsigned()) {
    auto n = v.get<std::uint64_t>();
    return n <= static_cast<std::uint64_t>(max) ? std::optional<T>(static_cast<T>(n)) : std::nullopt;
  }
  if (v.is_number_integer()) {
    auto n = v.get<std::int64_t>();
    return n >= 0 && static_cast<std::uint64_t>(n) <= static_cast<std::uint64_t>(max)
               ? std::optional<T>(static_cast<T>(n))
               : std::nullopt;
  }
  if (!v.is_number_float()) return std::nullopt;
  double d = v.get<double>();
  // 2^64 and above (max's double may round up to it) cannot be held.
  if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d >= 18446744073709551616.0 || d > static_cast<double>(max))
    return std::nullopt;
  return static_cast<T>(d);
}

bool error_line(std::string_view l) {
  for (std::string_view marker : {"Couldn't", "Couldnt", "Unable to", "ERROR", "Error", "Failed", "failed to",
                                  "Parser function exited with Error", "CUDA DMA-BUF cannot"})
    if (l.rfind(marker, 0) == 0) return true;
  return ascii::contains(l, "No IB devices found") ||
         (ascii::contains(l, "IB device") && ascii::contains(l, "not found"));
}

}  // namespace

std::optional<double> to_gbits(double value, PerftestUnit unit) {
  switch (unit) {
    case PerftestUnit::Gbits:
      return value;
    case PerftestUnit::MBytes:
      return value * 1048576.0 * 8 / 1e9;
    case PerftestUnit::Unknown:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<double> PerftestReport::average_gbits() const {
  if (rows.empty()) return std::nullopt;
  const PerftestRow* largest = &rows.front();
  for (const auto& r : rows)
    if (r.bytes >= largest->bytes) largest = &r;
  // A figure that is not a finite non-negative number (or overflows in the
  // conversion) is no figure: judging it could only mislead.
  std::optional<double> g = to_gbits(largest->bw_average, unit);
  if (!g || !std::isfinite(*g) || *g < 0) return std::nullopt;
  return g;
}

PerftestReport parse_perftest_text(std::string_view text) {
  PerftestReport r;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    std::string_view raw = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    std::string_view l = scan::trim(raw);
    if (ascii::contains(l, "BW Test")) {
      r.test = std::string(l);
      r.bidirectional = ascii::contains(l, "Bidirectional");
    } else if (ascii::contains(l, "BW average[")) {
      r.has_header = true;
      r.unit = ascii::contains(l, "[Gb/sec]")   ? PerftestUnit::Gbits
               : ascii::contains(l, "[MB/sec]") ? PerftestUnit::MBytes
                                                : PerftestUnit::Unknown;
    } else if (ascii::contains(l, "GPU buffer") || ascii::contains(l, "cuMemAlloc")) {
      r.gpu_buffer = true;
      if (ascii::contains(l, "dmabuf") || ascii::contains(l, "DMA-BUF") || ascii::contains(l, "DMABUF"))
        r.dmabuf = true;
    } else if (ascii::contains(l, "device name = [")) {
      auto open = l.find("device name = [") + 15, close = l.find(']', open);
      if (close != std::string_view::npos) r.gpu_name = std::string(l.substr(open, close - open));
    } else if (r.has_header && !l.empty() && l[0] >= '0' && l[0] <= '9') {
      if (auto row = table_row(l)) r.rows.push_back(*row);
    } else if (ascii::contains(l, " : ")) {
      header_pairs(raw, r);
    } else if (error_line(l)) {
      r.errors.emplace_back(l);
    }
    if (ascii::contains(l, "dmabuf") || ascii::contains(l, "DMA-BUF")) r.dmabuf = r.dmabuf || r.gpu_buffer;
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return r;
}

namespace {

// Standard JSON (perftest 24.01+), or the unquoted form older releases
// wrote (perftest_loose_json.h).
nlohmann::json strict_or_loose_json(std::string_view text) {
  try {
    return parse_untrusted_json(text, "perftest output", "perftest report");
  } catch (const InputError& e) {
    if (auto loose = read_perftest_loose_json(text)) return *loose;
    throw std::invalid_argument(e.problem());
  }
}

// GPU memory, as the JSON records it: "cuda_device" from perftest 24.10
// (src/perftest_parameters.c:print_report_bw@24.10.0-0.66), "musa_device"
// and "Use_MUSA_memory" later, "Use_ROCm_memory" since the file exists.
// Before 24.10 a CUDA run left no trace in the file.
void read_memory(const nlohmann::json& info, PerftestReport& r) {
  auto on = [&info](const char* key) { return info.contains(key) && info[key] == "ON"; };
  r.gpu_buffer =
      info.contains("cuda_device") || info.contains("musa_device") || on("Use_ROCm_memory") || on("Use_MUSA_memory");
}

}  // namespace

PerftestReport parse_perftest_json(std::string_view text, PerftestUnit unit) {
  nlohmann::json j = strict_or_loose_json(text);
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  if (!j.contains("results") || !j["results"].is_object()) throw std::invalid_argument("no \"results\" object");
  const auto& res = j["results"];
  auto number = [&res](const char* key) {
    if (!res.contains(key) || !res[key].is_number())
      throw std::invalid_argument(std::string("\"results\".\"") + key + "\" missing or not a number");
    return res[key].get<double>();
  };
  PerftestReport r;
  r.unit = unit;
  r.has_header = true;
  if (j.contains("test_info") && j["test_info"].is_object()) {
    const auto& info = j["test_info"];
    auto text_of = [&info](const char* key) {
      return info.contains(key) && info[key].is_string() ? info[key].get<std::string>() : std::string();
    };
    r.test = text_of("test");
    r.device = text_of("Device");
    r.link_type = text_of("Link_type");
    r.bidirectional = r.test.find("Bidirectional") != std::string::npos;
    if (info.contains("Number_of_qps")) r.qps = json_count<int>(info["Number_of_qps"]);
    read_memory(info, r);
  }
  PerftestRow row;
  auto bytes = res.contains("MsgSize") ? json_count<unsigned long long>(res["MsgSize"]) : std::nullopt;
  if (!bytes) throw std::invalid_argument("\"results\".\"MsgSize\" missing or not a byte count");
  row.bytes = *bytes;
  // A latency test ("RDMA_Write_Latency_Test": t_min, t_avg, ...) has no
  // bandwidth row.
  if (r.test.find("Latency") != std::string::npos && !res.contains("BW_average")) return r;
  if (res.contains("n_iterations")) row.iterations = json_count<unsigned long long>(res["n_iterations"]).value_or(0);
  row.bw_peak = res.contains("BW_peak") && res["BW_peak"].is_number() ? res["BW_peak"].get<double>() : 0;
  row.bw_average = number("BW_average");
  if (res.contains("MsgRate") && res["MsgRate"].is_number()) row.msg_rate_mpps = res["MsgRate"].get<double>();
  r.rows.push_back(row);
  return r;
}

}  // namespace gdrcheck
