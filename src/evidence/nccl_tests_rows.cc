// The lines of nccl-tests output that carry facts (see nccl_tests_rows.h).
//
// The table changed shape over the years (src/common.cu, util.cu): no '#'
// before 2019, no "root" column and an "error" float instead of "#wrong"
// before v2.10, no redop for all_gather/sendrecv/broadcast in early
// releases, a blank redop in early alltoall, per-iteration and timestamp
// columns since 2.17. Rather than trusting one header, a row is read from
// both ends: size, count and type lead; the tail is one or two groups of
// time/algbw/busbw/#wrong; whatever sits between is redop and/or root.
#include "evidence/nccl_tests_rows.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "evidence/nccl_tests_text.h"
#include "host/text_numbers.h"

namespace gdrcheck::nccltests {
namespace {

constexpr std::size_t kMaxParams = 64;

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

}  // namespace

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

// Where "device N [pci]" starts at or after word `from`; w.size() if nowhere.
static std::size_t device_word(const std::vector<std::string_view>& w, std::size_t from) {
  for (std::size_t i = from; i + 2 < w.size(); ++i)
    if (w[i] == "device" && whole_number<long>(w[i + 1]) && w[i + 2].front() == '[') return i;
  return w.size();
}

// "Rank  0 Group  0 Pid  41234 on node01 device  0 [0000:19:00] NVIDIA H100"
// and the older form without Group and with "[0x19]". The hostname is
// blank when the node has none, so "on" may be followed by "device"; a
// poster who redacts it may write several words ("on NODE A device 0"),
// kept with single spaces.
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
  std::size_t device = device_word(w, i);
  if (device == w.size() || device - i > 4) return std::nullopt;
  for (; i < device; ++i) r.host += (r.host.empty() ? "" : " ") + std::string(w[i]);
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

// A shell or launcher line that runs a test binary: "$ ./build/all_gather_perf
// -b 8 -e 8G -f 2 -g 8", "mpirun -np 16 ... all_reduce_perf_mpi -b 8". The
// name without its folder and the _mpi suffix; "" when the line runs none.
std::string command_test_name(std::string_view line) {
  for (std::string_view w : split_words(line)) {
    if (auto slash = w.rfind('/'); slash != std::string_view::npos) w = w.substr(slash + 1);
    if (w.size() > 4 && w.substr(w.size() - 4) == "_mpi") w.remove_suffix(4);
    if (w.size() <= 5 || w.size() > 40 || w.substr(w.size() - 5) != "_perf") continue;
    bool plain = std::all_of(w.begin(), w.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
    if (plain) return std::string(w);
  }
  return "";
}

}  // namespace gdrcheck::nccltests
