// Reader for nccl-tests / rccl-tests output.
//
// The table changed shape over the years (src/common.cu, util.cu): no '#'
// before 2019, no "root" column and an "error" float instead of "#wrong"
// before v2.10, no redop for all_gather/sendrecv/broadcast in early
// releases, a blank redop in early alltoall, per-iteration and timestamp
// columns since 2.17. Rather than trusting one header, a row is read from
// both ends: size, count and type lead; the tail is one or two groups of
// time/algbw/busbw/#wrong; whatever sits between is redop and/or root.
#include "evidence/nccl_tests.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "host/text_numbers.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxLine = 64 * 1024;
constexpr std::size_t kMaxNotes = 50;
constexpr std::size_t kMaxErrors = 20;
constexpr std::size_t kMaxParams = 64;

// Character classes of the per-byte loops (splitting, cleaning) as tables:
// one load per byte instead of a chain of comparisons.
template <class Pred>
constexpr std::array<bool, 256> char_table(Pred pred) {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[static_cast<std::size_t>(c)] = pred(static_cast<unsigned char>(c));
  return table;
}

constexpr auto kSpace = char_table(
    [](unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; });
constexpr auto kControl = char_table([](unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; });

bool is_space(char c) {
  return kSpace[static_cast<unsigned char>(c)];
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

// The first word of s: every line is tested against a few keywords, and
// splitting all of it for that would double the cost of reading a table.
std::string_view first_word(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  std::size_t j = i;
  while (j < s.size() && !is_space(s[j])) ++j;
  return s.substr(i, j - i);
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> out;
  out.reserve(16);  // most table rows fit: one allocation instead of five
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// ---------------------------------------------------------------- cleaning

bool is_control(char c) {
  return kControl[static_cast<unsigned char>(c)];
}

// Control bytes become spaces so a stray ESC or NUL cannot glue tokens.
// Copies only when there is one: most lines of a big log have none.
std::string_view clean(std::string_view line, std::string* scratch) {
  if (line.size() > kMaxLine) line = line.substr(0, kMaxLine);
  if (std::none_of(line.begin(), line.end(), is_control)) return line;
  scratch->assign(line);
  for (char& c : *scratch)
    if (is_control(c)) c = ' ';
  return *scratch;
}

// "[1,0]<stdout>:" from mpirun --tag-output; returns its length or 0.
std::size_t ompi_tag_length(std::string_view s) {
  std::size_t i = 0;
  if (i >= s.size() || s[i] != '[') return 0;
  ++i;
  while (i < s.size() && (is_digit(s[i]) || s[i] == ',')) ++i;
  if (i >= s.size() || s[i] != ']' || i == 1) return 0;
  ++i;
  if (i < s.size() && s[i] == '<') {
    std::size_t close = s.find('>', i);
    if (close == std::string_view::npos || close - i > 8) return 0;
    i = close + 1;
  }
  if (i >= s.size() || s[i] != ':') return 0;
  return i + 1;
}

// "[0]" / "[0,1]" / "[rank3]" before a row, with or without a space (a
// launcher's rank tag with no colon, as torchrun-style wrappers and pastes
// of one rank's output leave it); returns its length or 0.
std::size_t rank_tag_length(std::string_view s) {
  if (s.empty() || s[0] != '[') return 0;
  std::size_t i = 1;
  if (s.substr(1, 4) == "rank") i = 5;
  std::size_t digits = i;
  while (i < s.size() && (is_digit(s[i]) || s[i] == ',') && i < 16) ++i;
  if (i == digits || i >= s.size() || s[i] != ']') return 0;
  ++i;
  if (i < s.size() && s[i] == ':') ++i;
  return i;
}

// "12: " from srun --label; digits, a colon and a space.
std::size_t srun_label_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == 0 || i > 6 || i + 1 >= s.size() || s[i] != ':' || s[i + 1] != ' ') return 0;
  return i + 2;
}

// Launcher prefixes glued to the front of the line (mpirun --tag-output,
// srun --label, pdsh "host: " before a '#' line), any number of them.
std::string_view strip_launcher(std::string_view s) {
  for (int guard = 0; guard < 4; ++guard) {
    std::string_view t = trim(s);
    std::size_t n = ompi_tag_length(t);
    if (n == 0) n = srun_label_length(t);
    if (n == 0) n = rank_tag_length(t);
    if (n == 0) {
      std::size_t colon = t.find(": ");
      if (colon != std::string_view::npos && colon > 0 && colon < 64 && split_words(t.substr(0, colon)).size() == 1 &&
          starts_with(trim(t.substr(colon + 1)), "#"))
        n = colon + 1;
    }
    if (n == 0) return t;
    s = t.substr(n);
  }
  return trim(s);
}

// " NCCL INFO", " NCCL WARN" or " NCCL TRACE" anywhere, or a line that
// starts with "NCCL INFO" / "NCCL WARN"; one scan for " NCCL ".
bool is_nccl_log_line(std::string_view s) {
  if (starts_with(s, "NCCL INFO") || starts_with(s, "NCCL WARN")) return true;
  for (std::size_t at = s.find(" NCCL "); at != std::string_view::npos; at = s.find(" NCCL ", at + 1)) {
    std::string_view level = s.substr(at + 6);
    if (starts_with(level, "INFO") || starts_with(level, "WARN") || starts_with(level, "TRACE")) return true;
  }
  return false;
}

// "NCCL version 2.12.7+cuda11.4" alone or inside an INFO line.
std::optional<std::string> nccl_version_in(std::string_view s) {
  std::size_t at = s.find("NCCL version ");
  if (at == std::string_view::npos) return std::nullopt;
  auto words = split_words(s.substr(at + 13));
  if (words.empty() || !is_digit(words[0].front())) return std::nullopt;
  return std::string(words[0]);
}

// ------------------------------------------------------------ small parts

// "nThread 1 nGpus 1 minBytes 8 ... step: 2(factor) warmup iters: 1 ..."
// Keys are bare words followed by a value, or word runs ending in ':'.
std::vector<std::pair<std::string, std::string>> parse_params(std::string_view body) {
  std::vector<std::pair<std::string, std::string>> out;
  auto w = split_words(body);
  std::string pending;
  for (std::size_t i = 0; i < w.size() && out.size() < kMaxParams;) {
    std::string_view t = w[i];
    bool has_value = i + 1 < w.size();
    if (t.back() == ':' && t.size() > 1) {
      std::string key = pending.empty() ? std::string(t.substr(0, t.size() - 1))
                                        : pending + " " + std::string(t.substr(0, t.size() - 1));
      out.emplace_back(key, has_value ? std::string(w[i + 1]) : "");
      pending.clear();
      i += 2;
    } else if (pending.empty() && has_value && is_digit(w[i + 1].front()) && !is_digit(t.front())) {
      out.emplace_back(std::string(t), std::string(w[i + 1]));
      i += 2;
    } else {
      if (pending.size() < 64) pending += pending.empty() ? std::string(t) : " " + std::string(t);
      ++i;
    }
  }
  return out;
}

// "Rank  0 Group  0 Pid  41234 on node01 device  0 [0000:19:00] NVIDIA H100"
// and the older form without Group and with "[0x19]". The hostname is
// blank when the node has none, so "on" may be followed by "device".
std::optional<NcclTestsRank> parse_rank(std::string_view body) {
  auto w = split_words(body);
  NcclTestsRank r;
  std::size_t i = 0;
  auto take_int = [&](std::string_view key, auto& into) {
    if (i + 1 >= w.size() || w[i] != key) return false;
    auto v = whole_number<long>(w[i + 1]);
    if (!v) return false;
    into = static_cast<std::remove_reference_t<decltype(into)>>(*v);
    i += 2;
    return true;
  };
  if (!take_int("Rank", r.rank)) return std::nullopt;
  if (i < w.size() && w[i] == "Group") {
    int g = 0;
    if (!take_int("Group", g)) return std::nullopt;
    r.group = g;
  }
  if (!take_int("Pid", r.pid) || i >= w.size() || w[i] != "on") return std::nullopt;
  ++i;
  bool blank_host = i + 2 < w.size() && w[i] == "device" && whole_number<long>(w[i + 1]) && w[i + 2].front() == '[';
  if (!blank_host) {
    if (i >= w.size()) return std::nullopt;
    r.host = std::string(w[i++]);
  }
  if (!take_int("device", r.device) || i >= w.size()) return std::nullopt;
  std::string_view pci = w[i];
  if (pci.size() < 3 || pci.front() != '[' || pci.back() != ']') return std::nullopt;
  r.pci = std::string(pci.substr(1, pci.size() - 2));
  std::size_t after = static_cast<std::size_t>(pci.data() + pci.size() - body.data());
  r.gpu = std::string(trim(body.substr(after)));
  return r;
}

// "Out of bounds values : 0 OK" → {0, false}; "… : 24 FAILED" → {24, true}.
std::optional<std::pair<long, bool>> parse_out_of_bounds(std::string_view body) {
  std::size_t colon = body.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto w = split_words(body.substr(colon + 1));
  if (w.empty()) return std::nullopt;
  auto n = whole_number<long>(w[0]);
  if (!n) return std::nullopt;
  return std::make_pair(*n, w.size() > 1 && w[1] == "FAILED");
}

bool is_date_or_time(std::string_view t) {
  if (t.size() == 10 && t[4] == '-' && t[7] == '-') return true;
  return t.size() == 8 && t[2] == ':' && t[5] == ':';
}

bool is_type_name(std::string_view t) {
  return !t.empty() && is_alpha(t.front()) &&
         std::all_of(t.begin(), t.end(), [](char c) { return is_alpha(c) || is_digit(c) || c == '_'; });
}

// "#wrong" cell: a count, the old "error" float, or N/A. rccl-tests marks
// errors over its threshold with '*'.
bool parse_wrong(std::string_view t, std::optional<double>* out) {
  if (t == "N/A") {
    *out = std::nullopt;
    return true;
  }
  if (!t.empty() && t.back() == '*') t.remove_suffix(1);
  auto v = whole_number<double>(t);
  if (!v) return false;
  *out = v;
  return true;
}

// One group: time algbw busbw #wrong [i_min i_max i_p99 i_cv%].
std::optional<NcclTestsResult> parse_group(const std::vector<std::string_view>& t, std::size_t at, std::size_t width) {
  NcclTestsResult r;
  auto time = whole_number<double>(t[at]), alg = whole_number<double>(t[at + 1]), bus = whole_number<double>(t[at + 2]);
  if (!time || !alg || !bus || !parse_wrong(t[at + 3], &r.wrong)) return std::nullopt;
  for (std::size_t k = 4; k < width; ++k)
    if (!whole_number<double>(t[at + k])) return std::nullopt;
  r.time_us = *time;
  r.algbw = *alg;
  r.busbw = *bus;
  return r;
}

// redop and/or root between the type and the results.
bool parse_middle(const std::vector<std::string_view>& mid, NcclTestsRow* row) {
  if (mid.size() == 2) {
    auto root = whole_number<long>(mid[1]);
    if (!is_type_name(mid[0]) || !root) return false;
    row->redop = std::string(mid[0]);
    row->root = *root;
  } else if (mid.size() == 1) {
    if (auto root = whole_number<long>(mid[0])) {
      row->root = *root;
    } else if (is_type_name(mid[0])) {
      row->redop = std::string(mid[0]);
    } else {
      return false;
    }
  }
  return true;
}

// The columns after size, count (and type), from `first` on.
std::optional<NcclTestsRow> parse_row_with(const std::vector<std::string_view>& w, std::size_t first,
                                           std::size_t width) {
  std::vector<std::string_view> rest(w.begin() + static_cast<long>(first), w.end());
  while (!rest.empty() && is_date_or_time(rest.back())) rest.pop_back();
  for (std::size_t groups : {2u, 1u}) {
    if (rest.size() < groups * width || rest.size() - groups * width > 2) continue;
    std::size_t middle = rest.size() - groups * width;
    NcclTestsRow row;
    if (!parse_middle({rest.begin(), rest.begin() + static_cast<long>(middle)}, &row)) continue;
    auto first = parse_group(rest, middle, width);
    auto second = groups == 2 ? parse_group(rest, middle + width, width) : std::nullopt;
    if (!first || (groups == 2 && !second)) continue;
    row.out_of_place = first;
    row.in_place = second;
    return row;
  }
  return std::nullopt;
}

// `typed`: a type column follows size and count (every nccl-tests release;
// forks such as mscclpp's print none, and say so in their header).
std::optional<NcclTestsRow> parse_row(std::string_view text, std::size_t width, bool width_known, bool typed) {
  auto w = split_words(text);
  std::size_t first = typed ? 3 : 2;
  if (w.size() < first + 4) return std::nullopt;
  auto size = whole_number<uint64_t>(w[0]), count = whole_number<uint64_t>(w[1]);
  if (!size || !count || (typed && !is_type_name(w[2]))) return std::nullopt;
  auto row = parse_row_with(w, first, width);
  if (!row && !width_known) row = parse_row_with(w, first, 8);  // per-iteration columns, header not seen
  if (!row) return std::nullopt;
  row->size = *size;
  row->count = *count;
  if (typed) row->type = std::string(w[2]);
  return row;
}

// "Test NCCL failure", "Test CUDA failure", "Test failure", "Test HIP
// failure" or "Test RCCL failure" anywhere; one scan for "Test " since
// every line that is nothing else ends up here.
bool is_error_line(std::string_view s) {
  static constexpr std::string_view kWhat[] = {"NCCL failure", "CUDA failure", "failure", "HIP failure",
                                               "RCCL failure"};
  for (std::size_t at = s.find("Test "); at != std::string_view::npos; at = s.find("Test ", at + 1)) {
    std::string_view rest = s.substr(at + 5);
    for (std::string_view what : kWhat)
      if (starts_with(rest, what)) return true;
  }
  return false;
}

// ------------------------------------------------------- test name guess

int type_size(const std::string& t) {
  static const std::pair<const char*, int> kSizes[] = {
      {"int8", 1},    {"uint8", 1},    {"char", 1},    {"fp8_e4m3", 1}, {"fp8_e5m2", 1}, {"f8e4m3", 1}, {"f8e5m2", 1},
      {"half", 2},    {"bfloat16", 2}, {"float16", 2}, {"int32", 4},    {"uint32", 4},   {"int", 4},    {"float", 4},
      {"float32", 4}, {"int64", 8},    {"uint64", 8},  {"double", 8},   {"float64", 8}};
  for (const auto& [name, size] : kSizes)
    if (t == name) return size;
  return 0;
}

bool near(double a, double b) {
  return std::fabs(a - b) <= 0.08 * std::max(a, b);
}

// What the table says about its collective, from the row that moved most
// data: size/count gives the rank count for gather-like tests, redop and
// root, whether in-place results are checked, busbw/algbw the bus factor.
struct Shape {
  uint64_t k = 0;     // size / (count × type size); 0 when unknown
  std::size_t n = 0;  // ranks; 0 when unknown
  bool op = false, rooted = false, in_place_unchecked = false, error_era = false;
  double ratio = 0;  // busbw / algbw; 0 when too imprecise
};

std::optional<Shape> table_shape(const NcclTestsRun& run) {
  const NcclTestsRow* big = nullptr;
  for (const auto& r : run.rows)
    if (r.count > 0 && r.size > 0 && r.out_of_place && (!big || r.out_of_place->algbw > big->out_of_place->algbw))
      big = &r;
  if (!big) return std::nullopt;
  Shape s;
  uint64_t ts = static_cast<uint64_t>(type_size(big->type));
  if (ts > 0 && big->count <= UINT64_MAX / ts && big->size % (big->count * ts) == 0)
    s.k = big->size / (big->count * ts);
  s.n = run.ranks.empty() ? (s.k > 1 ? s.k : 0) : run.ranks.size();
  s.op = !big->redop.empty() && big->redop != "none";
  s.rooted = big->root && *big->root >= 0;
  s.in_place_unchecked = big->out_of_place->wrong && (!big->in_place || !big->in_place->wrong);
  s.error_era = run.wrong_column == "error";
  if (big->out_of_place->algbw >= 1.0) s.ratio = big->out_of_place->busbw / big->out_of_place->algbw;
  return s;
}

// The collective the shape fits, "" when more than one does.
std::string name_for(const Shape& s) {
  bool gathered = s.k > 1, plain = s.k == 1;
  if (s.rooted) return s.op ? "reduce_perf" : plain ? "broadcast_perf" : "";
  if (s.op && gathered) return "reduce_scatter_perf";
  if (!s.op && !s.error_era && s.in_place_unchecked) return "alltoall_perf";
  if (!s.op && gathered) return s.error_era ? "" : "all_gather_perf";
  if (!plain) return "";
  if (!s.op) return s.n != 1 ? "sendrecv_perf" : "";
  // all_reduce's bus factor 2(n-1)/n is the only one above 1.
  if (s.ratio > 1.1 ||
      (s.ratio > 0 && s.n > 2 && near(s.ratio, 2.0 * static_cast<double>(s.n - 1) / static_cast<double>(s.n))))
    return "all_reduce_perf";
  return s.in_place_unchecked ? "sendrecv_perf" : "all_reduce_perf";
}

std::string infer_test_name(const NcclTestsRun& run, std::string* basis) {
  auto shape = table_shape(run);
  if (!shape) return "";
  *basis = "size/count " + (shape->k ? std::to_string(shape->k) : std::string("?")) + ", " +
           (shape->op ? "a reduction" : "no reduction") + (shape->rooted ? ", a root" : "");
  return name_for(*shape);
}

}  // namespace

// ================================================================ parser

NcclTestsRun& NcclTestsParser::current() {
  if (!run_) {
    run_.emplace();
    layout_ = Layout{};
    run_has_table_ = false;
    hosts_seen_.clear();
    run_->command_test_name = std::move(pending_command_test_);
    pending_command_test_.clear();
  }
  return *run_;
}

// A shell or launcher line that runs a test binary: "$ ./build/all_gather_perf
// -b 8 -e 8G -f 2 -g 8", "mpirun -np 16 ... all_reduce_perf_mpi -b 8". The
// name without its folder and the _mpi suffix; "" when the line runs none.
static std::string command_test_name(std::string_view line) {
  for (std::string_view w : split_words(line)) {
    if (auto slash = w.rfind('/'); slash != std::string_view::npos) w = w.substr(slash + 1);
    if (w.size() > 4 && w.substr(w.size() - 4) == "_mpi") w.remove_suffix(4);
    if (w.size() <= 5 || w.size() > 40 || w.substr(w.size() - 5) != "_perf") continue;
    bool plain = std::all_of(w.begin(), w.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
    if (plain) return std::string(w);
  }
  return "";
}

void NcclTestsParser::on_command_line(std::string name) {
  if (run_ && !run_has_table_ && run_->command_test_name.empty())
    run_->command_test_name = std::move(name);  // its header lines came first
  else {
    if (run_has_table_) close_run();  // the previous test's table is over
    pending_command_test_ = std::move(name);
  }
}

NcclTestsRun& NcclTestsParser::fresh_run() {
  if (report_.runs.size() + 1 >= kMaxRuns) {
    note("more than " + std::to_string(kMaxRuns) + " runs; later runs merged into the last");
    return current();
  }
  close_run();
  return current();
}

void NcclTestsParser::note(std::string text) {
  auto& notes = current().notes;
  if (notes.size() < kMaxNotes && std::find(notes.begin(), notes.end(), text) == notes.end())
    notes.push_back(std::move(text));
}

namespace {

bool is_empty_run(const NcclTestsRun& r) {
  return r.rows.empty() && r.ranks.empty() && r.params.empty() && r.test_name.empty() && r.version_line.empty() &&
         !r.avg_busbw && !r.out_of_bounds && r.errors.empty() && r.wrong_column.empty();
}

double mean_busbw(const NcclTestsRun& run, std::size_t* values) {
  double sum = 0;
  *values = 0;
  for (const auto& r : run.rows)
    for (const auto& half : {r.out_of_place, r.in_place})
      if (half) {
        sum += half->busbw;
        ++*values;
      }
  return *values ? sum / static_cast<double>(*values) : 0;
}

void add_run_notes(NcclTestsRun& run) {
  auto add = [&](std::string s) {
    if (run.notes.size() < kMaxNotes) run.notes.push_back(std::move(s));
  };
  if (!run.complete)
    add("no footer (Out of bounds / Avg bus bandwidth): the output is cut short or the test did not finish");
  if (run.test_name.empty() && !run.command_test_name.empty()) {
    run.test_name = run.command_test_name;
    add("test name from the command line above the table: " + run.test_name);
  }
  if (run.test_name.empty() && !run.rows.empty()) {
    std::string basis;
    run.test_name = infer_test_name(run, &basis);
    run.test_name_inferred = !run.test_name.empty();
    add(run.test_name.empty() ? "test name not printed and not decided by the table (" + basis + ")"
                              : "test name not printed; " + run.test_name + " inferred from the table (" + basis + ")");
  }
  std::size_t values = 0;
  double mean = mean_busbw(run, &values);
  if (run.avg_busbw && values > 0 && std::fabs(mean - *run.avg_busbw) > std::max(0.05 * *run.avg_busbw, 0.02))
    add("footer average " + std::to_string(*run.avg_busbw) + " differs from the mean of the " + std::to_string(values) +
        " printed busbw values (" + std::to_string(mean) + "): rows are missing from this copy");
  if (run.wrong_column == "error") add("old 'error' column (largest relative error, not a count of wrong elements)");
  run.failed = run.out_of_bounds_failed || run.avg_busbw_ok == false || run.rows_with_wrong > 0 || !run.errors.empty();
}

}  // namespace

void NcclTestsParser::close_run() {
  if (!run_) return;
  NcclTestsRun run = std::move(*run_);
  run_.reset();
  if (is_empty_run(run)) return;
  add_run_notes(run);
  report_.runs.push_back(std::move(run));
}

// Lines that start with '#' (or the same text without it, as old releases
// and Markdown pastes print). Returns false when the line is none of them.
bool NcclTestsParser::handle_comment(std::string_view body, std::string_view raw) {
  std::string_view first = first_word(body);
  if (first.empty()) return true;
  if (starts_with(body, "nccl-tests version") || starts_with(body, "rccl-tests version")) {
    auto& run =
        (run_has_table_ || (run_ && (!run_->version_line.empty() || !run_->params.empty()))) ? fresh_run() : current();
    run.version_line = std::string(raw);
    run.tool = std::string(body.substr(0, 10));
    return true;
  }
  if (starts_with(body, "Collective test starting:")) {
    auto& run =
        (run_has_table_ || (run_ && (!run_->test_name.empty() || !run_->params.empty()))) ? fresh_run() : current();
    run.test_name = std::string(trim(body.substr(25)));
    return true;
  }
  if (starts_with(body, "Collective test concluded:")) {
    current().complete = true;
    close_run();
    return true;
  }
  if (first == "nThread") {
    auto& run = (run_has_table_ || (run_ && !run_->params.empty())) ? fresh_run() : current();
    run.params = parse_params(body);
    return true;
  }
  if (first == "Rank") return handle_rank(body);
  if (contains(body, "out-of-place")) {
    // The group names above the header; most print out-of-place first.
    auto in = body.find("in-place");
    groups_in_place_first_ = in != std::string_view::npos && in < body.find("out-of-place");
    return true;
  }
  if (starts_with(body, "Using devices") || first == "(B)") return true;
  if (first == "size") {
    auto words = split_words(body);
    if (std::find(words.begin(), words.end(), "busbw") != words.end()) return handle_header(words);
  }
  if (starts_with(body, "Out of bounds values")) return handle_out_of_bounds(body);
  if (starts_with(body, "Avg bus bandwidth")) return handle_average(body);
  if (starts_with(body, "error:") && raw.front() == '#') {
    add_error(std::string(trim(body.substr(6))));
    return true;
  }
  if (starts_with(body, "Reducing maxBytes")) {
    note(std::string(body));
    return true;
  }
  return starts_with(body, "Blocking Enabled") || starts_with(body, "Parallel Init") ||
         starts_with(body, "Per-Iteration Report") || starts_with(body, "Writing JSON") ||
         starts_with(body, "Errors with asterisks") || starts_with(body, "GPU memory usage") ||
         starts_with(body, "skipping json");
}

bool NcclTestsParser::handle_rank(std::string_view body) {
  auto r = parse_rank(body);
  if (!r) return false;
  auto& run = current();
  if (total_ranks_ >= kMaxRanks) {
    note("more than " + std::to_string(kMaxRanks) + " rank lines; the rest are not kept");
    return true;
  }
  ++total_ranks_;
  if (!r->host.empty() && hosts_seen_.insert(r->host).second) run.hosts.push_back(r->host);
  run.ranks.push_back(std::move(*r));
  return true;
}

bool NcclTestsParser::handle_header(const std::vector<std::string_view>& words) {
  auto& run = (run_ && (!run_->rows.empty() || run_->complete || run_->avg_busbw)) ? fresh_run() : current();
  std::vector<std::size_t> times;
  for (std::size_t i = 0; i < words.size(); ++i)
    if (words[i] == "time" || words[i] == "cputime") times.push_back(i);
  if (times.empty()) return true;
  Layout l;
  l.seen = true;
  l.error_column = std::find(words.begin(), words.end(), "error") != words.end();
  l.timestamp = std::find(words.begin(), words.end(), "timestamp") != words.end();
  l.type_column = std::find(words.begin(), words.end(), "type") != words.end();
  l.in_place_first = groups_in_place_first_;
  groups_in_place_first_ = false;
  std::size_t end = words.size() - (l.timestamp ? 1 : 0);
  l.group_width = times.size() >= 2 ? times[1] - times[0] : end - times[0];
  if (l.group_width < 4 || l.group_width > 8) l.group_width = 4;
  layout_ = l;
  run.wrong_column = l.error_column ? "error" : "#wrong";
  run_has_table_ = true;
  return true;
}

bool NcclTestsParser::handle_out_of_bounds(std::string_view body) {
  auto v = parse_out_of_bounds(body);
  auto& run = current();
  run_has_table_ = true;
  if (!v) {
    note("unreadable footer: " + std::string(body));
    return true;
  }
  run.out_of_bounds = v->first;
  run.out_of_bounds_failed = v->second;
  run.complete = true;
  return true;
}

bool NcclTestsParser::handle_average(std::string_view body) {
  auto& run = current();
  run_has_table_ = true;
  run.complete = true;
  std::size_t colon = body.find(':');
  auto w = split_words(colon == std::string_view::npos ? std::string_view() : body.substr(colon + 1));
  auto v = w.empty() ? std::nullopt : whole_number<double>(w[0]);
  if (!v) {
    note("unreadable footer: " + std::string(body));
    return true;
  }
  if (run.avg_busbw) note("two average lines in one run; the last one is kept");
  run.avg_busbw = v;
  if (w.size() > 1 && (w[1] == "OK" || w[1] == "FAILED")) run.avg_busbw_ok = w[1] == "OK";
  return true;
}

void NcclTestsParser::add_error(std::string text) {
  auto& run = current();
  if (run.errors.size() < kMaxErrors)
    run.errors.push_back(std::move(text));
  else
    note("more than " + std::to_string(kMaxErrors) + " error lines; the rest are not kept");
}

bool NcclTestsParser::handle_row(std::string_view text) {
  auto row = parse_row(text, layout_.group_width, layout_.seen, !layout_.seen || layout_.type_column);
  if (!row) return false;
  if (layout_.in_place_first) std::swap(row->in_place, row->out_of_place);
  auto& run = current();
  run_has_table_ = true;
  if (run.wrong_column.empty() && row->out_of_place && row->out_of_place->wrong) {
    // No header: an exponent or a fraction means the old error column.
    auto w = split_words(text);
    bool fractional = std::any_of(w.begin() + 3, w.end(), [](std::string_view t) {
      return (contains(t, "e-") || contains(t, "e+")) && whole_number<double>(t);
    });
    run.wrong_column = fractional ? "error" : "#wrong";
  }
  if (!row->in_place && row->out_of_place) note("rows with one result group; read as out-of-place");
  if (row->in_place && !row->out_of_place)
    note("rows with one result group; read as in-place, as the header orders them");
  record_row(run, std::move(*row));
  return true;
}

void NcclTestsParser::record_row(NcclTestsRun& run, NcclTestsRow row) {
  row.line = report_.lines;
  // Out-of-place is the figure people quote; a row with in-place only has that.
  const auto& oop = row.out_of_place ? row.out_of_place : row.in_place;
  if (oop && (!run.max_busbw || oop->busbw > *run.max_busbw)) {
    run.max_busbw = oop->busbw;
    run.max_busbw_size = row.size;
  }
  bool wrong = run.wrong_column != "error" && ((oop && oop->wrong && *oop->wrong != 0) ||
                                               (row.in_place && row.in_place->wrong && *row.in_place->wrong != 0));
  if (wrong) ++run.rows_with_wrong;
  if (total_rows_ >= kMaxRows) {
    if (!rows_capped_) note("more than " + std::to_string(kMaxRows) + " rows; the rest are counted, not kept");
    rows_capped_ = true;
    return;
  }
  ++total_rows_;
  run.rows.push_back(std::move(row));
}

void NcclTestsParser::feed(std::string_view raw_line) {
  if (finished_) return;
  ++report_.lines;
  std::string scratch;
  std::string_view text = strip_launcher(clean(raw_line, &scratch));
  if (text.empty()) return;
  if (is_nccl_log_line(text)) {
    ++report_.info_lines;
    if (auto v = nccl_version_in(text); v && run_) run_->nccl_version = *v;
    return;
  }
  if (starts_with(text, "NCCL version ")) {
    if (auto v = nccl_version_in(text)) current().nccl_version = *v;
    return;
  }
  if (starts_with(text, "rccl-tests:")) {  // "rccl-tests: Version HEAD:e1b8a3a"
    auto& run = current();
    if (run.version_line.empty()) run.version_line = std::string(text);
    run.tool = "rccl-tests";
    return;
  }
  if (text.front() == '#') {
    handle_comment(trim(text.substr(1)), text);
    return;
  }
  if (handle_comment(text, text) || handle_row(text)) return;
  if (std::string name = command_test_name(text); !name.empty()) return on_command_line(std::move(name));
  if (is_error_line(text)) add_error(std::string(text));
}

NcclTestsReport NcclTestsParser::finish() {
  if (!finished_) {
    close_run();
    if (report_.runs.empty()) report_.notes.push_back("no nccl-tests output found");
    if (report_.runs.size() > 1)
      report_.notes.push_back(std::to_string(report_.runs.size()) + " test runs in one input");
    finished_ = true;
  }
  return std::move(report_);
}

bool looks_like_nccl_tests(std::string_view head) {
  std::size_t start = 0, lines = 0, headless_rows = 0;
  bool header = false, typed = true;
  while (start < head.size() && lines++ < 400) {
    std::size_t end = std::min(head.find('\n', start), head.size());
    std::string scratch;
    std::string_view t = strip_launcher(clean(head.substr(start, end - start), &scratch));
    start = end + 1;
    if (!t.empty() && t.front() == '#') t = trim(t.substr(1));
    if (starts_with(t, "nccl-tests version") || starts_with(t, "rccl-tests version") ||
        starts_with(t, "Collective test starting:") || starts_with(t, "Avg bus bandwidth") ||
        starts_with(t, "Out of bounds values"))
      return true;
    auto w = split_words(t);
    if (w.size() >= 4 && w[0] == "nThread" && w[2] == "nGpus") return true;
    bool is_header =
        std::find(w.begin(), w.end(), "size") != w.end() && std::find(w.begin(), w.end(), "busbw") != w.end();
    header = header || is_header;
    if (is_header) typed = std::find(w.begin(), w.end(), "type") != w.end();
    if (header && !is_header && parse_row(t, 4, false, typed)) return true;
    // A table cut above its header: three rows in a row are enough.
    headless_rows = !is_header && parse_row(t, 4, false, true) ? headless_rows + 1 : 0;
    if (headless_rows >= 3) return true;
  }
  return false;
}

NcclTestsReport parse_nccl_tests(std::string_view text) {
  NcclTestsParser p;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    p.feed(text.substr(start, end - start));
    start = end + 1;
  }
  return p.finish();
}

}  // namespace gdrcheck
