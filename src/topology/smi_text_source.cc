// Reader for pasted `nvidia-smi topo -m` / `topo -mp` text.
//
// nvidia-smi prints the matrix with tabs, but what users paste rarely keeps
// them: terminals turn tabs into runs of spaces (and empty cells vanish),
// forums re-indent, ANSI underline codes (or the "[4m" left when the ESC byte
// is lost) stick to the header, neighbouring cells run together
// ("NODENODE"), and prompts, logs and a `topo -p2p` matrix surround it.
// So the reader works on words rather than fixed columns: the header gives
// the device labels, each row must then hold exactly that many device cells,
// and whatever follows them are the affinity cells.
#include "topology/smi_text_source.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "text/ascii.h"
#include "text/binary_text.h"
#include "topology/input_error.h"
#include "topology/smi_unfold.h"
#include "topology/smi_vocabulary.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kTabStop = 8;
// No node has more devices in `topo -m` than this (GPUs plus NICs: 8 + 18 on
// the largest seen), nor a line longer: 256 cells of a few bytes each plus
// affinity lists. A pasted file beyond either is not a matrix, and without
// the bounds a 40 MB line or header costs gigabytes (cells, codes, and a
// rows x columns map).
constexpr std::size_t kMaxMatrixDevices = 256;
constexpr std::size_t kMaxMatrixLineBytes = 64 * 1024;

// ---------------------------------------------------------------- cleaning

// Length of the escape sequence at s[i], 0 when there is none. Handles
// "ESC[...X" and the "[4m" / "[0m" debris a paste leaves without its ESC.
std::size_t csi_escape_length(std::string_view s, std::size_t i) {
  bool esc = s[i] == '\x1b';
  if (!esc && s[i] != '[') return 0;
  std::size_t j = esc ? i + 1 : i;
  if (j >= s.size() || s[j] != '[') return esc ? 1 : 0;
  std::size_t params = ++j;
  while (j < s.size() && (ascii::is_digit(s[j]) || s[j] == ';')) ++j;
  if (j >= s.size()) return esc ? 1 : 0;
  if (esc && s[j] >= 0x40 && s[j] <= 0x7e) return j + 1 - i;
  if (!esc && s[j] == 'm' && j > params) return j + 1 - i;
  return esc ? 1 : 0;
}

// U+FFFD, what an issue tracker or chat tool makes of an ESC byte it
// cannot show: never part of a matrix, it only sticks to the first label.
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

// A byte clean_lines() keeps whatever follows it: not a control byte, nor
// the start of an escape, its debris or a replacement character.
bool kept_as_is(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u >= 0x20 || c == '\t') && u != 0x7f && c != '[' && c != kReplacementChar[0];
}

// Removes escapes, carriage returns and replacement characters, turns other
// control bytes into spaces, and splits into lines.
std::vector<std::string> clean_lines(std::string_view text) {
  std::vector<std::string> lines(1);
  for (std::size_t i = 0; i < text.size();) {
    // Bytes kept as they are, nearly all of a paste, are copied in runs.
    std::size_t run = i;
    while (run < text.size() && kept_as_is(text[run])) ++run;
    if (run > i) {
      lines.back().append(text.substr(i, run - i));
      i = run;
      continue;
    }
    // The lead byte first: a three-byte compare at every byte costs more
    // than the rest of the cleaning.
    if (text[i] == kReplacementChar[0] && text.compare(i, kReplacementChar.size(), kReplacementChar) == 0) {
      lines.back() += ' ';
      i += kReplacementChar.size();
      continue;
    }
    if (std::size_t n = csi_escape_length(text, i)) {
      i += n;
      continue;
    }
    char c = text[i++];
    if (c == '\n') {
      lines.emplace_back();
    } else if (c != '\r') {
      unsigned char u = static_cast<unsigned char>(c);
      lines.back() += (u < 0x20 && c != '\t') || u == 0x7f ? ' ' : c;
    }
  }
  return lines;
}

// ------------------------------------------------------------------- words

// A word with its columns after tab expansion, so that cells a terminal
// turned into spaces can be put back into tab cells (see tail_cells). The
// text is a view into its cleaned line: words are made for every line of
// the input, and copies would dominate the cost of reading it.
struct Word {
  std::string_view text;
  std::size_t col = 0, end = 0;
};

std::vector<Word> words_of(std::string_view line) {
  std::vector<Word> words;
  std::size_t col = 0;
  for (std::size_t i = 0; i < line.size();) {
    char c = line[i];
    if (ascii::is_blank(c)) {
      col = c == '\t' ? (col / kTabStop + 1) * kTabStop : col + 1;
      ++i;
      continue;
    }
    std::size_t start = i, start_col = col;
    for (; i < line.size() && !ascii::is_blank(line[i]); ++i) ++col;
    words.push_back({line.substr(start, i - start), start_col, col});
  }
  return words;
}

// The cleaned lines and their words, split once: the matrix search, the
// rows, the legend and the notes all look at the same words.
struct Text {
  // Declared first: `lines` is built with it (lines cut where a paste had
  // lost its line breaks).
  std::size_t unfolded = 0;
  std::vector<std::string> lines;
  std::vector<std::vector<Word>> words;  // views into `lines`

  explicit Text(std::string_view raw) : lines(smi::unfold_lines(clean_lines(raw), &unfolded)) {
    words.reserve(lines.size());
    for (const auto& line : lines) words.push_back(line.size() > kMaxMatrixLineBytes ? too_long() : words_of(line));
  }
  // A line no matrix has: one word that is no label, code or header, so it
  // ends a matrix and starts none.
  static std::vector<Word> too_long() { return {Word{"(line longer than 64 KiB)", 0, 0}}; }
  // A copy would keep views into the original's lines.
  Text(const Text&) = delete;
  Text& operator=(const Text&) = delete;
};

// ------------------------------------------------------------ codes, labels

using smi::is_code;
using smi::is_device_label;
using smi::is_lower_label;
using smi::is_p2p_status;
using smi::split_glued_codes;
using smi::split_glued_labels;
using smi::split_leading_labels;

// ------------------------------------------------------------------ header

struct MatrixHeader {
  std::vector<std::string> devices;  // column labels, in order
  std::vector<std::string> columns;  // "CPU Affinity", "NUMA Affinity", ...
  bool glued = false;                // labels had run together
};

// The header starts with GPU0 (possibly glued to GPU1); the GPU0 *row* also
// starts with GPU0 but is followed by its own "X".
bool is_header_start(const std::vector<Word>& w) {
  if (w.empty()) return false;
  if (w[0].text != "GPU0") {
    auto parts = split_glued_labels(w[0].text);
    if (parts.empty()) parts = split_leading_labels(w[0].text).labels;
    return !parts.empty() && parts[0] == "GPU0";
  }
  return w.size() == 1 || w[1].text != "X";
}

// The names after the device labels are multi-word, so words are grouped
// into the known names; unknown words in a row become one name.
std::vector<std::string> group_column_names(const std::vector<std::string>& words) {
  static const std::array<std::vector<std::string>, 3> kKnown = {
      std::vector<std::string>{"CPU", "Affinity"}, {"NUMA", "Affinity"}, {"GPU", "NUMA", "ID"}};
  std::vector<std::string> names;
  std::string unknown;
  for (std::size_t i = 0; i < words.size();) {
    const std::vector<std::string>* hit = nullptr;
    for (const auto& k : kKnown)
      if (i + k.size() <= words.size() && std::equal(k.begin(), k.end(), words.begin() + static_cast<long>(i)))
        hit = &k;
    if (!hit) {
      unknown += (unknown.empty() ? "" : " ") + words[i++];
      continue;
    }
    if (!unknown.empty()) names.push_back(std::move(unknown));
    unknown.clear();
    std::string name;
    for (const auto& part : *hit) name += (name.empty() ? "" : " ") + part;
    names.push_back(name);
    i += hit->size();
  }
  if (!unknown.empty()) names.push_back(unknown);
  return names;
}

MatrixHeader parse_header(const std::vector<Word>& words) {
  MatrixHeader h;
  std::size_t i = 0;
  for (; i < words.size(); ++i) {
    std::string_view w = words[i].text;
    if (is_device_label(w)) {
      h.devices.emplace_back(w);
    } else if (auto parts = split_glued_labels(w); !parts.empty()) {
      h.devices.insert(h.devices.end(), parts.begin(), parts.end());
      h.glued = true;
    } else {
      break;
    }
  }
  // "GPU2CPU": the last label ran into the first column name.
  std::vector<std::string> rest;
  if (i < words.size()) {
    if (auto lead = split_leading_labels(words[i].text); !lead.labels.empty()) {
      h.devices.insert(h.devices.end(), lead.labels.begin(), lead.labels.end());
      h.glued = true;
      rest.push_back(lead.rest);
      ++i;
    }
  }
  // "AffinityNUMA": column names whose space was lost.
  for (; i < words.size(); ++i)
    for (auto& part : smi::split_camel_words(words[i].text)) {
      h.glued |= part.size() != words[i].text.size();
      rest.push_back(std::move(part));
    }
  h.columns = group_column_names(rest);
  return h;
}

// -------------------------------------------------------------------- rows

struct Cell {
  std::string_view text;         // a view into the line
  std::size_t col = 0, end = 0;  // only meaningful for space-separated lines
};

struct Row {
  std::string label;
  std::vector<std::string> codes;                           // one per header device
  std::vector<std::pair<std::string, std::string>> values;  // column name, raw cell
  bool glued = false;
  bool values_glued = false;  // the affinity cells ran together: not read
};

// Cells of a line. With tabs, tab cells keep their empties (an empty CPU
// affinity is a real cell); a tab cell holding several words (mixed
// spacing) counts as several cells. Without tabs, the words.
std::vector<Cell> cells_of(std::string_view line, const std::vector<Word>& line_words) {
  std::vector<Cell> cells;
  if (line.find('\t') == std::string_view::npos) {
    cells.reserve(line_words.size());
    for (const auto& w : line_words) cells.push_back({w.text, w.col, w.end});
    return cells;
  }
  std::size_t start = 0;
  while (start <= line.size()) {
    std::size_t tab = std::min(line.find('\t', start), line.size());
    auto words = words_of(line.substr(start, tab - start));
    if (words.empty()) cells.push_back({});
    for (auto& w : words) cells.push_back({w.text, 0, 0});
    start = tab + 1;
  }
  return cells;
}

// Turns the words after the device cells of a space-separated line back
// into tab cells: nvidia-smi separates cells with one tab, so k tab stops
// crossed between two words mean k-1 empty cells between them.
std::vector<std::string> tail_from_positions(const std::vector<Cell>& cells, std::size_t first, std::size_t prev_end,
                                             std::size_t max_cells) {
  std::vector<std::string> tail;
  for (std::size_t i = first; i < cells.size(); ++i) {
    std::size_t stops = cells[i].col / kTabStop - prev_end / kTabStop;
    for (std::size_t k = 1; k < stops && tail.size() < max_cells; ++k) tail.emplace_back();
    tail.emplace_back(cells[i].text);
    prev_end = cells[i].end;
  }
  return tail;
}

// Pairs the cells after the device cells with the header's column names.
// nvidia-smi pads with empty cells before "GPU NUMA ID" (its header word is
// wider than a tab), so when there are more cells than names the last name
// takes the last cell, provided the cells in between are empty.
std::vector<std::pair<std::string, std::string>> assign_columns(std::vector<std::string> tail,
                                                                const std::vector<std::string>& names) {
  while (!tail.empty() && tail.back().empty()) tail.pop_back();
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t k = names.size();
  bool padded = tail.size() > k && k > 0 &&
                std::all_of(tail.begin() + static_cast<long>(k - 1), tail.end() - 1, [](auto& s) { return s.empty(); });
  for (std::size_t i = 0; i < k && i < tail.size(); ++i)
    out.emplace_back(names[i], padded && i == k - 1 ? tail.back() : tail[i]);
  return out;
}

// Splits a row into its label, `n` device codes and the affinity cells.
// Returns nullopt (with `problem` set) when the row is short of codes.
std::optional<Row> parse_row(std::string_view line, const std::vector<Word>& line_words, const MatrixHeader& h,
                             std::string* problem) {
  std::vector<Cell> cells = cells_of(line, line_words);
  std::size_t i = 0;
  while (i < cells.size() && cells[i].text.empty()) ++i;
  if (i == cells.size()) return std::nullopt;
  Row row;
  row.label = std::string(cells[i++].text);
  std::size_t n = h.devices.size(), prev_end = cells[i - 1].end;
  std::string glued_rest;  // an affinity cell the last codes ran into
  for (; i < cells.size() && row.codes.size() < n; ++i) {
    if (cells[i].text.empty()) continue;
    auto parts = split_glued_codes(cells[i].text);
    if (parts.empty() && !is_code(cells[i].text)) {
      auto lead = smi::split_leading_codes(cells[i].text, n - row.codes.size());
      parts = std::move(lead.codes);
      glued_rest = std::move(lead.rest);
      row.glued |= !parts.empty();
    }
    if (parts.empty() || row.codes.size() + parts.size() > n) parts = {std::string(cells[i].text)};
    row.glued |= parts.size() > 1;
    row.codes.insert(row.codes.end(), parts.begin(), parts.end());
    prev_end = cells[i].end;
  }
  if (row.codes.size() < n) {
    *problem = "matrix row " + row.label + " has " + std::to_string(row.codes.size()) + " device cells, header has " +
               std::to_string(n) + " devices";
    return std::nullopt;
  }
  bool spaced = line.find('\t') == std::string_view::npos;
  std::vector<std::string> tail;
  if (!glued_rest.empty()) tail.push_back(glued_rest);
  for (std::size_t j = i; j < cells.size(); ++j) tail.emplace_back(cells[j].text);
  // Cells that ran into the codes ran into each other too ("0-310N/A" for
  // "0-31", "0", "N/A"): where they cannot be told apart, none is read.
  if (!glued_rest.empty() && tail.size() < h.columns.size()) {
    row.values_glued = true;
    return row;
  }
  if (spaced && tail.size() < h.columns.size()) tail = tail_from_positions(cells, i, prev_end, 2 * h.columns.size());
  row.values = assign_columns(std::move(tail), h.columns);
  return row;
}

// --------------------------------------------------------------- matrices

struct Matrix {
  MatrixHeader header;
  std::vector<Row> rows;
  std::size_t end_line = 0;  // first line after the rows
};

bool is_legend_line(const std::vector<Word>& w) {
  return !w.empty() && w[0].text == "Legend:";
}

// "GPU0XNODENODE0-310N/A": a row whose label ran into its first code. The
// longest header label the word starts with, followed by a code, is cut
// off with a space; "" when the word does not start that way.
std::string unglue_row_label(std::string_view line, const Word& first,
                             const std::set<std::string, std::less<>>& labels) {
  std::string_view best;
  for (const auto& label : labels) {
    std::string_view w = first.text;
    if (label.size() < w.size() && w.substr(0, label.size()) == label && smi::code_at(w, label.size()) > 0 &&
        label.size() > best.size())
      best = label;
  }
  if (best.empty()) return "";
  std::size_t at = static_cast<std::size_t>(first.text.data() - line.data()) + best.size();
  return std::string(line.substr(0, at)) + " " + std::string(line.substr(at));
}

// Rows follow the header (blank lines allowed) until the legend or a line
// that is not the row of a header device not yet seen.
Matrix read_matrix(const Text& text, std::size_t header_line, std::string* problem) {
  Matrix m;
  m.header = parse_header(text.words[header_line]);
  if (m.header.devices.size() > kMaxMatrixDevices) {
    *problem = "header names " + std::to_string(m.header.devices.size()) + " devices; a node has at most " +
               std::to_string(kMaxMatrixDevices);
    m.end_line = header_line + 1;
    return m;
  }
  std::set<std::string, std::less<>> labels(m.header.devices.begin(), m.header.devices.end()), seen;
  std::size_t i = header_line + 1;
  for (; i < text.lines.size(); ++i) {
    const auto& words = text.words[i];
    if (words.empty()) continue;
    if (is_legend_line(words)) break;
    std::string unglued;  // the line with its label cut from the codes it ran into
    std::vector<Word> unglued_words;
    std::string_view line = text.lines[i];
    const std::vector<Word>* row_words = &words;
    if (!labels.count(words[0].text)) {
      unglued = unglue_row_label(line, words[0], labels);
      if (unglued.empty()) break;
      unglued_words = words_of(unglued);
      line = unglued;
      row_words = &unglued_words;
    }
    if (seen.count((*row_words)[0].text)) break;
    auto row = parse_row(line, *row_words, m.header, problem);
    if (!row) break;
    seen.insert(row->label);
    m.rows.push_back(std::move(*row));
  }
  m.end_line = i;
  return m;
}

// A `topo -p2p` matrix has the same header; its cells are statuses.
bool is_p2p_matrix(const Matrix& m) {
  bool any = false;
  for (const auto& r : m.rows)
    for (const auto& c : r.codes) {
      if (c == "X") continue;
      if (!is_p2p_status(c)) return false;
      any = true;
    }
  return any;
}

// ------------------------------------------------------------ the model

// "a, b, c" — at most 8 items, so a hostile header cannot make huge notes.
std::string short_list(const std::vector<std::string>& v) {
  constexpr std::size_t kMax = 8;
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < kMax; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > kMax) out += " and " + std::to_string(v.size() - kMax) + " more";
  return out;
}

bool is_label_of(std::string_view label, std::string_view prefix) {
  return label.substr(0, prefix.size()) == prefix && label.size() > prefix.size() &&
         std::all_of(label.begin() + static_cast<long>(prefix.size()), label.end(), ascii::is_digit);
}

// "NICk: mlx5_3" lines after the matrix, up to the next header.
std::map<std::string, std::string> read_nic_legend(const Text& text, std::size_t from) {
  std::map<std::string, std::string> legend;
  for (std::size_t i = from; i < text.lines.size(); ++i) {
    const auto& w = text.words[i];
    if (is_header_start(w)) break;
    if (w.size() == 2 && w[0].text.size() > 1 && w[0].text.back() == ':') {
      std::string key(w[0].text.substr(0, w[0].text.size() - 1));
      if (is_label_of(key, "NIC")) legend.emplace(key, w[1].text);
    }
  }
  return legend;
}

// Endpoint ids: GPUk and NICk as printed; old drivers' device-name columns
// become NIC<n> in column order (after any printed NICk); anything else
// (NVME0?) is kept as printed with role Extra.
std::vector<Endpoint> make_endpoints(const MatrixHeader& h, const std::map<std::string, std::string>& legend) {
  std::set<std::string> taken(h.devices.begin(), h.devices.end());
  std::vector<Endpoint> eps;
  int next_nic = 0;
  for (const auto& label : h.devices) {
    Endpoint e;
    e.id = label;
    if (is_label_of(label, "GPU")) {
      e.role = DeviceRole::Gpu;
    } else if (is_label_of(label, "NIC")) {
      e.role = DeviceRole::Nic;
      // Without the NIC Legend (cut from a paste) the label is all there is.
      auto it = legend.find(label);
      e.name = it != legend.end() ? it->second : label;
    } else if (is_lower_label(label)) {
      e.role = DeviceRole::Nic;
      e.name = label;
      while (taken.count("NIC" + std::to_string(next_nic))) ++next_nic;
      e.id = "NIC" + std::to_string(next_nic++);
      taken.insert(e.id);
    }
    eps.push_back(std::move(e));
  }
  return eps;
}

// Single non-negative integer, as NUMA Affinity prints it; -1 otherwise.
int single_numa(const std::string& s) {
  if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), ascii::is_digit)) return -1;
  return std::stoi(s);
}

bool is_affinity_column(const std::string& name) {
  // "NUMA" alone: hand-written or reworded headers.
  return name == "CPU Affinity" || name == "NUMA Affinity" || name == "NUMA";
}

// What the affinity cells of the whole matrix are worth. A CPU list that
// is no list (a reversed range such as "60-59") is no output of
// nvidia-smi: the page altered the numbers, so no affinity cell of the
// matrix is trusted. A cell cut short ("56-111,1...") is dropped alone.
struct AffinityTrust {
  bool trusted = true;
  std::vector<std::string> bad;  // the cells that prove the alteration
  std::vector<std::string> cut;  // row labels whose affinity was cut
};

AffinityTrust judge_affinity(const Matrix& m) {
  AffinityTrust t;
  for (const auto& r : m.rows)
    for (const auto& [name, value] : r.values) {
      if (smi::is_cut_cell(value)) {
        t.cut.push_back(r.label);
      } else if (name == "CPU Affinity" && !value.empty() && value != "N/A" && !smi::is_cpu_list(value)) {
        t.trusted = false;
        t.bad.push_back(r.label + " " + value);
      }
    }
  return t;
}

void apply_values(Endpoint& e, const Row& row, bool trust_affinity) {
  for (const auto& [name, value] : row.values) {
    if (value.empty() || smi::is_cut_cell(value)) continue;
    if (is_affinity_column(name) && !trust_affinity) continue;
    e.attributes[name == "NUMA" ? "NUMA Affinity" : name] = value;
    if (name == "CPU Affinity" && value != "N/A") e.locality.cpus = value;
    if (name == "NUMA Affinity" || name == "NUMA") e.locality.numa = single_numa(value);
  }
}

void add_notes(Topology& t, const Matrix& m, const std::map<std::string, std::string>& legend, const Text& text) {
  std::vector<std::string> old_style, unnamed, missing, unknown, glued, values_glued;
  std::set<std::string> rows;
  for (const auto& r : m.rows) {
    rows.insert(r.label);
    if (r.glued) glued.push_back(r.label);
    if (r.values_glued) values_glued.push_back(r.label);
    for (const auto& c : r.codes)
      if (!is_code(c) && std::find(unknown.begin(), unknown.end(), c) == unknown.end()) unknown.push_back(c);
  }
  for (const auto& label : m.header.devices) {
    if (is_lower_label(label)) old_style.push_back(label);
    if (is_label_of(label, "NIC") && !legend.count(label)) unnamed.push_back(label);
    if (!rows.count(label)) missing.push_back(label);
  }
  if (!old_style.empty())
    t.notes.push_back("no NIC legend: NIC names taken from column headers (" + short_list(old_style) + ")");
  if (!unnamed.empty())
    t.notes.push_back("no NIC Legend entry for " + short_list(unnamed) + ": RDMA device names unknown");
  if (!missing.empty()) t.notes.push_back("no matrix row for " + short_list(missing) + " (paste cut short?)");
  if (m.header.glued) t.notes.push_back("header labels had run together; split them");
  if (!glued.empty())
    t.notes.push_back("cells had run together in rows " + short_list(glued) + "; split them into codes");
  if (!unknown.empty()) t.notes.push_back("unrecognised codes: " + short_list(unknown));
  if (!values_glued.empty())
    t.notes.push_back("affinity cells had run together in rows " + short_list(values_glued) +
                      " and cannot be told apart: CPU and NUMA affinity not read");
  if (text.unfolded)
    t.notes.push_back("the matrix had lost its line breaks (" + std::to_string(text.unfolded) +
                      " line(s) held a header or rows after other text); cut into rows");
  // Old drivers print SOC in the cells and a "SOC  = ..." legend line.
  bool soc = std::any_of(m.rows.begin(), m.rows.end(),
                         [](auto& r) { return std::find(r.codes.begin(), r.codes.end(), "SOC") != r.codes.end(); });
  for (std::size_t i = m.end_line; i < text.lines.size() && !soc; ++i) {
    const auto& w = text.words[i];
    soc = !w.empty() && w[0].text == "SOC";
  }
  if (soc) t.notes.push_back("legend uses SOC (old driver): SOC means SYS");
}

Topology build(const Matrix& m, const Text& text, const std::string& source) {
  Topology t;
  t.kind = SourceKind::SmiText;
  t.source = source;
  t.tree = TreeStyle::None;
  auto legend = read_nic_legend(text, m.end_line);
  t.endpoints = make_endpoints(m.header, legend);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < m.header.devices.size(); ++i) index[m.header.devices[i]] = i;
  AffinityTrust trust = judge_affinity(m);
  for (const auto& row : m.rows) {
    Endpoint& e = t.endpoints[index.at(row.label)];
    apply_values(e, row, trust.trusted);
    for (std::size_t c = 0; c < row.codes.size(); ++c) t.printed_matrix[{e.id, t.endpoints[c].id}] = row.codes[c];
  }
  add_notes(t, m, legend, text);
  if (!trust.trusted)
    t.notes.push_back("CPU Affinity cells that are no CPU list (" + short_list(trust.bad) +
                      "): the text was altered, so no CPU or NUMA affinity of this matrix is used");
  if (!trust.cut.empty()) t.notes.push_back("affinity cut short in rows " + short_list(trust.cut) + ": not read");
  return t;
}

std::string duplicate_label(const MatrixHeader& h) {
  std::set<std::string> seen;
  for (const auto& d : h.devices)
    if (!seen.insert(d).second) return d;
  return "";
}

// First header whose rows form a `topo -m` matrix; p2p matrices are skipped.
Matrix find_matrix(const Text& text, const std::string& source, std::vector<std::string>* notes) {
  std::string problem = "no header row starting with GPU0 found (not `nvidia-smi topo -m` output)";
  bool damaged = false;
  for (std::size_t i = 0; i < text.lines.size(); ++i) {
    if (!is_header_start(text.words[i])) continue;
    std::string row_problem;
    Matrix m = read_matrix(text, i, &row_problem);
    if (auto d = duplicate_label(m.header); !d.empty()) row_problem = "header names device " + d + " twice";
    if (!row_problem.empty()) {
      // A damaged matrix is the most useful thing to report, unless a
      // later header holds a good one.
      if (!damaged) problem = row_problem;
      damaged = true;
      continue;
    }
    if (m.rows.empty()) {
      if (!damaged) problem = "header row with GPU0 found but no matrix rows follow it";
      continue;
    }
    if (is_p2p_matrix(m)) {
      notes->push_back("skipped a `topo -p2p` matrix (status cells, not path codes)");
      if (!damaged) problem = "only a `topo -p2p` matrix found, not `topo -m`";
      continue;
    }
    return m;
  }
  throw InputError(source, problem);
}

}  // namespace

bool looks_like_smi_text(std::string_view text) {
  if (text.empty() || looks_binary(text)) return false;
  const Text split(text);
  for (std::size_t i = 0; i < split.lines.size(); ++i) {
    if (!is_header_start(split.words[i])) continue;
    std::string problem;
    Matrix m = read_matrix(split, i, &problem);
    if (is_p2p_matrix(m)) continue;
    for (const auto& r : m.rows)
      if (std::any_of(r.codes.begin(), r.codes.end(), is_code)) return true;
  }
  return false;
}

Topology read_smi_text(std::string_view text, const std::string& source_name) {
  bool blank =
      std::all_of(text.begin(), text.end(), [](char c) { return ascii::is_blank(c) || c == '\n' || c == '\r'; });
  if (blank) throw InputError(source_name, "empty input");
  if (looks_binary(text)) throw InputError(source_name, "binary data, not `nvidia-smi topo -m` text");
  const Text split(text);
  std::vector<std::string> notes;
  Matrix m = find_matrix(split, source_name, &notes);
  Topology t = build(m, split, source_name);
  t.notes.insert(t.notes.begin(), notes.begin(), notes.end());
  return t;
}

}  // namespace gdrcheck
