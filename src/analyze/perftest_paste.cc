#include "analyze/perftest_paste.h"

#include <array>
#include <cctype>
#include <stdexcept>

#include "evidence/ibv_text.h"
#include "host/device_ids.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

constexpr std::array<std::string_view, 11> kPrograms = {
    "ib_write_bw", "ib_read_bw",    "ib_send_bw",      "ib_atomic_bw",     "ib_write_lat",          "ib_read_lat",
    "ib_send_lat", "ib_atomic_lat", "raw_ethernet_bw", "raw_ethernet_lat", "raw_ethernet_burst_lat"};

// The perftest program a command line runs ("./ib_write_bw -d mlx5_0 ...",
// "root@u1:~# /opt/bin/ib_read_bw -q 30 host"), or "" when the line is not
// one: the name must stand as a word or a path's last part.
std::string_view command_program(std::string_view l) {
  for (std::string_view p : kPrograms) {
    std::size_t at = l.find(p);
    while (at != std::string_view::npos) {
      std::size_t end = at + p.size();
      bool starts = at == 0 || l[at - 1] == ' ' || l[at - 1] == '/' || l[at - 1] == '\t' || l[at - 1] == '(' ||
                    l[at - 1] == '$' || l[at - 1] == '#';
      bool ends = end == l.size() || l[end] == ' ' || l[end] == '\t';
      if (starts && ends) return p;
      at = l.find(p, at + 1);
    }
  }
  return {};
}

bool has_flag(std::string_view l, std::string_view flag) {
  std::size_t at = l.find(flag);
  while (at != std::string_view::npos) {
    std::size_t end = at + flag.size();
    bool starts = at == 0 || l[at - 1] == ' ' || l[at - 1] == '\t';
    bool ends = end == l.size() || l[end] == ' ' || l[end] == '=' || l[end] == '\t';
    if (starts && ends) return true;
    at = l.find(flag, at + 1);
  }
  return false;
}

// Lines perftest prints when a run fails (perftest's fprintf(stderr, ...)
// messages start with these; some carry a function name before them, as
// "ethernet_read_keys: Couldn't read remote address").
bool failure_line(std::string_view l) {
  for (std::string_view m :
       {"Couldn't", "Couldnt", "Unable to", "Failed to", "failed to", "Completion with error", "Failed status",
        "ERRNO:", "Segmentation fault", "No IB devices found", "Parser function exited with Error",
        "CUDA DMA-BUF cannot", "OFED stack does not support", "ERROR"})
    if (ascii::contains(l, m)) return true;
  return ascii::contains(l, "IB device") && ascii::contains(l, "not found");
}

// A pasted line without the Markdown a forum or chat wrapped it in: bold
// markers glued to a figure ("**5544.28**") and inline-code backticks
// around a command; perftest itself prints neither.
std::string unmarked(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '`') continue;
    if (raw[i] == '*' && i + 1 < raw.size() && raw[i + 1] == '*' && !(i + 2 < raw.size() && raw[i + 2] == '*') &&
        !(i > 0 && raw[i - 1] == '*')) {
      ++i;
      continue;
    }
    out.push_back(raw[i]);
  }
  return out;
}

bool banner(std::string_view l) {
  return ascii::contains(l, " BW Test") || ascii::contains(l, " Latency Test") || l.rfind("BW Test", 0) == 0;
}

// ConnectX/BlueField named in the text, or a Mellanox PCI id ("15b3:1021").
void find_nic_model(std::string_view text, PerftestPaste& p) {
  for (std::size_t at = text.find("15b3:"); at != std::string_view::npos; at = text.find("15b3:", at + 1)) {
    std::string_view hex = text.substr(at + 5, 4);
    if (hex.size() != 4) break;
    unsigned id = 0;
    bool ok = true;
    for (char c : hex) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) ok = false;
      id = id * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c))
                                               ? c - '0'
                                               : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    }
    if (!ok) continue;
    if (auto info = mellanox_nic_info(static_cast<uint16_t>(id)); info && info->max_rate_gbps > 0) {
      p.nic_model = info->model;
      p.nic_model_max_gbps = info->max_rate_gbps;
      return;
    }
  }
}

void read_port_rates(std::string_view text, PerftestPaste& p) {
  if (!looks_like_ibv_text(text)) return;
  IbvReport r = parse_ibv_text(text);
  for (const auto& d : r.devices)
    for (const auto& port : d.ports)
      if (port.rate_gbps && *port.rate_gbps > 0) p.port_rates.push_back({d.name, port.port, *port.rate_gbps});
}

// What the header block would have said, read off the lines below it when
// the paste starts after it: one "local address:" line per queue pair, and
// a BW peak of 0.00 beside an average is perftest's "not measured".
void complete_from_rows(std::string_view text, PerftestRun& run) {
  if (!run.report.qps) {
    int local = 0;
    for (std::size_t at = text.find("local address:"); at != std::string_view::npos;
         at = text.find("local address:", at + 1))
      ++local;
    if (local > 0) run.report.qps = local;
  }
  for (const auto& row : run.report.rows)
    if (row.bw_peak == 0 && row.bw_average > 0) run.peak_not_measured = true;
  if (run.cuda_started || run.report.gpu_buffer) run.start_shown = true;
}

PerftestPaste read_json(std::string_view text) {
  PerftestPaste p;
  p.json = true;
  PerftestRun run;
  run.first_line = 1;
  run.report = parse_perftest_json(text, PerftestUnit::Unknown);
  run.latency = ascii::contains(run.report.test, "Lat");
  // The file names GPU memory, or nothing: then it cannot tell host memory
  // from an older perftest's CUDA run (judge_run says so).
  run.start_shown = run.report.gpu_buffer;
  p.runs.push_back(std::move(run));
  for (char c : text) p.lines += c == '\n';
  return p;
}

}  // namespace

bool looks_like_perftest(std::string_view head) {
  std::string_view t = ascii::trim(head, " \t\r");
  while (!t.empty() && (t.front() == '\n' || t.front() == ' ')) t.remove_prefix(1);
  if (!t.empty() && t.front() == '{')  // standard JSON, or the unquoted form before perftest 24.01
    return ascii::contains(t, "\"test_info\"") || ascii::contains(t, "\ntest_info:") ||
           (ascii::contains(t, "results") && (ascii::contains(t, "BW_average") || ascii::contains(t, "t_avg")));
  if (ascii::contains(head, "* Waiting for client to connect... *") ||
      ascii::contains(head, "Couldn't create IB resources") ||
      ascii::contains(head, "Failed to exchange data between server and clients") ||
      ascii::contains(head, "cuMemAlloc() of a") || ascii::contains(head, "allocated GPU buffer"))
    return true;
  if (ascii::contains(head, "#bytes") && ascii::contains(head, "#iterations")) return true;
  // The banner with one of the header block's keys.
  bool named =
      ascii::contains(head, " BW Test") || ascii::contains(head, " Latency Test") || ascii::contains(head, "\nBW Test");
  if (head.rfind("RDMA_", 0) == 0 || head.rfind("Send ", 0) == 0) named = named || ascii::contains(head, " Test\n");
  return named && (ascii::contains(head, "Dual-port") || ascii::contains(head, "Device         :") ||
                   ascii::contains(head, "Link type"));
}

PerftestPaste read_perftest_paste(std::string_view text) {
  {
    std::string_view t = ascii::trim(text, " \t\r");
    while (!t.empty() && (t.front() == '\n' || t.front() == ' ')) t.remove_prefix(1);
    if (!t.empty() && t.front() == '{') return read_json(text);
  }
  PerftestPaste p;
  struct Pending {
    PerftestRun run;
    std::string text;
    bool has_banner = false, has_rows_header = false, has_content = false;
  };
  std::vector<Pending> pending(1);
  pending.back().run.first_line = 1;
  auto start_new = [&](std::size_t line) {
    pending.emplace_back();
    pending.back().run.first_line = line;
  };
  std::size_t n = 0, start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    std::string clean =
        unmarked(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    std::string_view raw = clean;
    std::string_view l = ascii::trim(raw, " \t\r");
    ++n;
    Pending* cur = &pending.back();
    std::string_view program = command_program(l);
    bool output_seen = cur->has_banner || cur->has_rows_header;
    if (!program.empty()) {
      // A command starts a run unless only preamble came before it.
      if (output_seen || !cur->run.errors.empty() || !cur->run.program.empty()) start_new(n);
      cur = &pending.back();
      cur->run.first_line = n;  // prose before the command is not the run's
      cur->run.start_shown = true;
      cur->run.program = std::string(program);
      cur->run.command = {n, std::string(l)};
      cur->run.command_cuda = has_flag(l, "--use_cuda");
      cur->run.command_rocm = has_flag(l, "--use_rocm") || has_flag(l, "-use_rocm");
      cur->run.command_dmabuf = has_flag(l, "--use_cuda_dmabuf") || has_flag(l, "--use_rocm_dmabuf");
      cur->run.command_gbits = has_flag(l, "--report_gbits");
      cur->run.command_bidirectional = has_flag(l, "-b") || has_flag(l, "--bidirectional");
    } else {
      bool new_output =
          banner(l) || ascii::contains(l, "* Waiting for client to connect... *") || l == "initializing CUDA";
      // perftest prints its table header once: a second one is a second run
      // pasted without its header block ("Case 2:" and the table).
      bool second_table = ascii::contains(l, "#bytes") && cur->has_rows_header;
      if ((new_output && output_seen) || second_table) {
        start_new(n);
        cur = &pending.back();
      }
      if (new_output) cur->run.start_shown = true;
      if (banner(l)) {
        cur->has_banner = true;
        cur->run.latency = ascii::contains(l, "Latency Test");
        if (cur->run.latency) cur->run.report.test = std::string(l);
      }
      if (ascii::contains(l, "#bytes")) cur->has_rows_header = true;
      if (l == "initializing CUDA" || ascii::contains(l, "CUDA Ctx")) cur->run.cuda_started = true;
      if (ascii::contains(l, "BW peak won't be measured")) cur->run.peak_not_measured = true;
      if (ascii::contains(l, "Conflicting CPU frequency values")) cur->run.cpu_frequency_warning = true;
      if (l == "^C") cur->run.interrupted = true;
      if (failure_line(l) && !ascii::contains(l, "Conflicting CPU frequency"))
        cur->run.errors.push_back({n, std::string(l)});
      if (!l.empty()) cur->has_content = true;
    }
    cur->text.append(raw);
    cur->text.push_back('\n');
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  p.lines = n;
  for (auto& pr : pending) {
    std::string test = pr.run.report.test;
    pr.run.report = parse_perftest_text(pr.text);
    // Prose or other tools' output between runs is no run.
    bool perftest = pr.has_banner || pr.has_rows_header || !pr.run.program.empty() || !pr.run.errors.empty() ||
                    pr.run.cuda_started || pr.run.report.gpu_buffer;
    if (!perftest) continue;
    if (pr.run.latency) pr.run.report.test = test;
    complete_from_rows(pr.text, pr.run);
    p.runs.push_back(std::move(pr.run));
  }
  read_port_rates(text, p);
  find_nic_model(text, p);
  return p;
}

}  // namespace gdrcheck
