// Parser for `nvidia-smi nvlink --status` / `-R` text.
//
// The output is a list of blocks: a "GPU n: name (UUID: ...)" header, then
// one "Link n: value" line per link, or one NVML line saying why there are
// none. What reaches us is rarely the bare output: Markdown re-indents it,
// prompts and other commands' output surround it, pdsh puts "host: " before
// every line, terminals add colour and CR, and people elide the middle with
// "..." or "[...]". So lines are recognised by the tokens they contain
// ("GPU n:", "Link n:"), not by their position, and any other non-blank
// line ends the block it follows. The text is read once, line by line,
// without keeping the lines.
#include "evidence/nvidia_smi_nvlink.h"

#include <algorithm>
#include <map>
#include <set>

#include "host/text_numbers.h"
#include "text/ascii.h"
#include "text/binary_text.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxNvlinkLineBytes = 4096;  // of a cleaned line; the rest is skipped
constexpr std::size_t kMaxNvlinkGpus = 1024;
constexpr int kMaxLinks = 64;  // NVML knows at most 18 today; room for the next generations
constexpr std::size_t kMaxGpuNameBytes = 128;
constexpr std::size_t kMaxValueBytes = 96;
constexpr std::size_t kMaxNvlinkNotes = 16;

bool contains_nocase(std::string_view s, std::string_view word) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  auto it =
      std::search(s.begin(), s.end(), word.begin(), word.end(), [&](char a, char b) { return lower(a) == lower(b); });
  return it != s.end();
}

// ------------------------------------------------------------- cleaning

// Length of the terminal escape at s[i], 0 when there is none: CSI
// ("ESC[01;32m"), OSC ("ESC]0;title BEL"), other two-byte escapes, and the
// "[0m" debris a paste leaves when the ESC byte is lost.
std::size_t terminal_escape_length(std::string_view s, std::size_t i) {
  if (s[i] == '\x1b') {
    if (i + 1 >= s.size()) return 1;
    std::size_t j = i + 2;
    if (s[i + 1] == '[') {
      while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e) && s[j] != '\n') ++j;
      return j < s.size() && s[j] != '\n' ? j + 1 - i : j - i;
    }
    if (s[i + 1] == ']') {
      while (j < s.size() && s[j] != '\a' && s[j] != '\n' && s[j] != '\x1b') ++j;
      return j < s.size() && s[j] == '\a' ? j + 1 - i : j - i;
    }
    return s[i + 1] == '\n' ? 1 : 2;
  }
  if (s[i] != '[') return 0;
  std::size_t j = i + 1;
  while (j < s.size() && (ascii::is_digit(s[j]) || s[j] == ';')) ++j;
  return j > i + 1 && j < s.size() && s[j] == 'm' ? j + 1 - i : 0;
}

// Calls `on_line` with each line, escapes and CR removed, other control
// bytes turned into spaces, at most kMaxNvlinkLineBytes long.
template <class F>
void for_each_clean_line(std::string_view text, F on_line) {
  std::string line;
  for (std::size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '\n') {
      on_line(std::string_view(line));
      line.clear();
      ++i;
      continue;
    }
    if (std::size_t n = terminal_escape_length(text, i)) {
      i += n;
      continue;
    }
    ++i;
    auto u = static_cast<unsigned char>(c);
    if (c == '\r' || line.size() >= kMaxNvlinkLineBytes) continue;
    line += (u < 0x20 && c != '\t') || u == 0x7f ? ' ' : c;
  }
  if (!line.empty()) on_line(std::string_view(line));
}

// Length of the UTF-8 sequence at s[i] that encodes a printable code point,
// 0 when the bytes are not one (C1 controls U+0080..U+009F count as not).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](std::size_t k) { return k < s.size() && (b(k) & 0xc0) == 0x80; };
  unsigned char c = b(i);
  if (c >= 0xc2 && c <= 0xdf) return cont(i + 1) && !(c == 0xc2 && b(i + 1) < 0xa0) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (c >= 0xf0 && c <= 0xf4) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

// Text from the output made safe to keep and print: ASCII and well-formed
// UTF-8 stay, a tab becomes a space, any other byte '?'; at most `max` bytes.
std::string clean_text(std::string_view s, std::size_t max) {
  s = ascii::trim(s, " \t");
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : utf8_length(s, i);
    if (out.size() + std::max<std::size_t>(n, 1) > max) break;
    if (c == '\t') {
      out += ' ';
      ++i;
    } else if (n == 0) {
      out += '?';
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// ----------------------------------------------------------------- lines

// "<word><number>:" anywhere in the line: the number (at most `digits`
// long) and what follows the colon.
struct NumberedWord {
  int number = -1;
  std::string_view rest;
};

std::optional<NumberedWord> find_numbered(std::string_view line, std::string_view word, std::size_t digits,
                                          bool blank_after) {
  for (std::size_t at = line.find(word); at != std::string_view::npos; at = line.find(word, at + 1)) {
    std::size_t i = at + word.size(), start = i;
    while (i < line.size() && ascii::is_digit(line[i]) && i - start <= digits) ++i;
    if (i == start || i - start > digits || i >= line.size() || line[i] != ':') continue;
    if (blank_after && i + 1 < line.size() && !ascii::is_blank(line[i + 1])) continue;
    int number = 0;
    for (std::size_t k = start; k < i; ++k) number = number * 10 + (line[k] - '0');
    return NumberedWord{number, line.substr(i + 1)};
  }
  return std::nullopt;
}

// "GPU 12: NVIDIA H100 ..." anywhere in the line (after a prompt or a host
// prefix). The colon must be followed by a space or the end, which keeps
// `nvidia-smi -q`'s "GPU 00000000:18:00.0" out.
struct GpuHeader {
  int index = -1;
  std::string_view rest;
};

std::optional<GpuHeader> find_gpu_header(std::string_view line) {
  auto n = find_numbered(line, "GPU ", 4, true);
  if (!n) return std::nullopt;
  return GpuHeader{n->number, n->rest};
}

// "Link 3: value"; `nvidia-smi nvlink -c` prints "Link 3, P2P ..." and is
// not matched.
struct LinkLine {
  int number = -1;
  std::string_view value;
};

std::optional<LinkLine> find_link(std::string_view line) {
  auto n = find_numbered(line, "Link ", 3, false);
  if (!n) return std::nullopt;
  return LinkLine{n->number, ascii::trim(n->rest, " \t")};
}

// "...", "......", "…", "[...]", "[snip]", "... (18 links total)".
bool is_elision(std::string_view t) {
  return t.starts_with("...") || t.starts_with("\xe2\x80\xa6") || t.starts_with("[...]") ||
         t.starts_with("[\xe2\x80\xa6]") || t.starts_with("[snip]");
}

// An NVML or nvidia-smi line saying why there is no answer.
bool is_message(std::string_view t) {
  return contains_nocase(t, "NVML") || contains_nocase(t, "Unable to retrieve") ||
         contains_nocase(t, "Not Supported") || contains_nocase(t, "NVIDIA-SMI has failed") ||
         contains_nocase(t, "No devices were found") || contains_nocase(t, "Insufficient Permissions");
}

bool says_all_inactive(std::string_view message) {
  return contains_nocase(message, "all links are inactive");
}

// "Remote Device 00000000:D5:00.0: Link 6" (nvidia-smi nvlink -R).
void read_remote(std::string_view v, NvLinkLink& link) {
  v = ascii::trim(v.substr(std::string_view("Remote Device").size()), " \t");
  std::size_t end = v.find(": ");
  std::string_view bus = v.substr(0, std::min(end, v.find(' ')));
  while (!bus.empty() && bus.back() == ':') bus.remove_suffix(1);
  link.remote_bus_id = clean_text(bus, 32);
  if (end != std::string_view::npos) {
    std::string_view rest = ascii::trim(v.substr(end + 1), " \t");
    if (rest.starts_with("Link ")) link.remote_link = leading_number<int>(rest.substr(5)).value_or(-1);
  }
  link.state = link.remote_bus_id.empty() ? NvLinkLinkState::Unknown : NvLinkLinkState::Active;
}

NvLinkLink read_link(const LinkLine& l) {
  NvLinkLink link;
  link.number = l.number;
  link.value = clean_text(l.value, kMaxValueBytes);
  std::string_view v = l.value;
  if (contains_nocase(v.substr(0, 16), "inactive")) {
    link.state = NvLinkLinkState::Inactive;
  } else if (v.starts_with("Remote Device")) {
    read_remote(v, link);
  } else if (auto speed = leading_double(v); speed && *speed >= 0) {
    std::size_t number_end = std::min(v.find_first_not_of("0123456789."), v.size());
    if (ascii::trim(v.substr(number_end), " \t").starts_with("GB/s")) {
      link.gbytes_per_s = *speed;
      // An active link always reports its rate; 0 is not a working link.
      link.state = *speed > 0 ? NvLinkLinkState::Active : NvLinkLinkState::Unknown;
    }
  }
  return link;
}

// "NVIDIA H100 PCIe (UUID: GPU-...)" or, from old drivers, just the name.
void read_identity(std::string_view rest, NvLinkGpu& gpu) {
  rest = ascii::trim(rest, " \t");
  std::size_t u = rest.find("(UUID:");
  gpu.name = clean_text(rest.substr(0, u), kMaxGpuNameBytes);
  if (u == std::string_view::npos) return;
  std::string_view id = ascii::trim(rest.substr(u + 6), " \t");
  id = id.substr(0, id.find(')'));
  gpu.uuid = clean_text(id, kMaxGpuNameBytes);
}

// ---------------------------------------------------------------- parser

class Parser {
 public:
  NvLinkStatus run(std::string_view text) {
    for_each_clean_line(text, [this](std::string_view line) { on_line(line); });
    finish();
    return std::move(out_);
  }

 private:
  void note(const std::string& n) {
    if (out_.notes.size() < kMaxNvlinkNotes && std::find(out_.notes.begin(), out_.notes.end(), n) == out_.notes.end())
      out_.notes.push_back(n);
  }

  void on_line(std::string_view line) {
    std::string_view t = ascii::trim(line, " \t");
    if (t.empty()) return;  // blank lines do not end a block: pastes add them
    any_text_ = true;
    if (is_elision(t)) return on_elision();
    if (auto h = find_gpu_header(line)) return on_header(*h);
    if (auto l = find_link(line)) return on_link(*l);
    if (is_message(t)) return on_message(t);
    current_ = kNone;  // prompts, fences, other commands' output
  }

  void on_elision() {
    if (current_ == kNone) {
      note("lines elided (\"...\"): some GPUs were left out of the paste");
      return;
    }
    block().elided = true;
  }

  void on_header(const GpuHeader& h) {
    auto seen = position_.find(h.index);
    if (seen != position_.end()) {
      NvLinkGpu& earlier = out_.gpus[seen->second];
      if (!earlier.links.empty() || !earlier.message.empty()) {
        // Another sub-command's output (-info, -c, -e) or a second host
        // repeats the header; the first block with content is kept.
        note("GPU " + std::to_string(h.index) + " appears more than once; the first block was kept");
        current_ = kDiscard;
        discard_ = NvLinkGpu{};
        return;
      }
      earlier = NvLinkGpu{};
      start_block(seen->second, h);
      return;
    }
    if (out_.gpus.size() >= kMaxNvlinkGpus) {
      note("more than " + std::to_string(kMaxNvlinkGpus) + " GPUs: the rest were ignored");
      current_ = kDiscard;
      return;
    }
    position_[h.index] = out_.gpus.size();
    out_.gpus.emplace_back();
    start_block(out_.gpus.size() - 1, h);
  }

  void start_block(std::size_t pos, const GpuHeader& h) {
    current_ = static_cast<long>(pos);
    NvLinkGpu& g = out_.gpus[pos];
    g.index = h.index;
    read_identity(h.rest, g);
    numbers_[pos].clear();
  }

  void on_link(const LinkLine& l) {
    if (current_ == kNone) {
      ++orphan_links_;
      return;
    }
    if (current_ == kDiscard) return;
    if (l.number >= kMaxLinks) {
      note("link numbers above " + std::to_string(kMaxLinks - 1) + " were ignored");
      return;
    }
    NvLinkGpu& g = block();
    if (!numbers_[static_cast<std::size_t>(current_)].insert(l.number).second) {
      note("GPU " + std::to_string(g.index) + " lists a link twice (another nvlink sub-command?); the first was kept");
      return;
    }
    g.links.push_back(read_link(l));
  }

  void on_message(std::string_view t) {
    if (current_ == kNone) {
      if (failure_.empty()) failure_ = clean_text(t, 200);
      return;
    }
    if (current_ == kDiscard) return;
    NvLinkGpu& g = block();
    if (g.message.empty()) g.message = clean_text(t, 200);
  }

  NvLinkGpu& block() { return current_ == kDiscard ? discard_ : out_.gpus[static_cast<std::size_t>(current_)]; }

  void finish() {
    if (orphan_links_ > 0)
      note(std::to_string(orphan_links_) + " \"Link n:\" line(s) outside any GPU block were ignored");
    if (!out_.gpus.empty()) {
      out_.kind = NvLinkStatus::Kind::Found;
    } else if (!any_text_) {
      out_.kind = NvLinkStatus::Kind::Empty;
      out_.problem = "empty output: no GPU is listed (GPUs without NVLink hardware are not listed)";
    } else if (!failure_.empty()) {
      out_.kind = NvLinkStatus::Kind::Failed;
      out_.problem = "nvidia-smi did not list any GPU: " + failure_;
    } else {
      out_.kind = NvLinkStatus::Kind::NotNvLink;
      out_.problem = "no \"GPU n: name\" line: not nvidia-smi nvlink output";
    }
  }

  static constexpr long kNone = -1, kDiscard = -2;
  NvLinkStatus out_;
  std::map<int, std::size_t> position_;           // GPU index -> position in out_.gpus
  std::map<std::size_t, std::set<int>> numbers_;  // link numbers seen per block
  long current_ = kNone;
  NvLinkGpu discard_;
  std::string failure_;
  std::size_t orphan_links_ = 0;
  bool any_text_ = false;
};

}  // namespace

const char* nvlink_gpu_state_name(NvLinkGpuState s) {
  switch (s) {
    case NvLinkGpuState::Active:
      return "active";
    case NvLinkGpuState::AllInactive:
      return "all inactive";
    case NvLinkGpuState::Unknown:
      return "unknown";
  }
  return "unknown";
}

int NvLinkGpu::active_links() const {
  return static_cast<int>(
      std::count_if(links.begin(), links.end(), [](auto& l) { return l.state == NvLinkLinkState::Active; }));
}

int NvLinkGpu::inactive_links() const {
  return static_cast<int>(
      std::count_if(links.begin(), links.end(), [](auto& l) { return l.state == NvLinkLinkState::Inactive; }));
}

NvLinkGpuState NvLinkGpu::state() const {
  if (active_links() > 0) return NvLinkGpuState::Active;
  if (says_all_inactive(message)) return NvLinkGpuState::AllInactive;
  bool all_listed_down = !links.empty() && inactive_links() == static_cast<int>(links.size());
  if (all_listed_down && !elided) return NvLinkGpuState::AllInactive;
  return NvLinkGpuState::Unknown;
}

std::string NvLinkGpu::describe() const {
  std::string n = std::to_string(links.size());
  switch (state()) {
    case NvLinkGpuState::Active: {
      auto first = std::find_if(links.begin(), links.end(), [](auto& l) { return l.state == NvLinkLinkState::Active; });
      std::string what = first->remote_bus_id.empty() ? first->value : "to " + first->remote_bus_id;
      std::string text = std::to_string(active_links()) + " of " + n + " links active (" + what + ")";
      return elided ? text + ", more elided" : text;
    }
    case NvLinkGpuState::AllInactive:
      return message.empty() ? "all " + n + " links inactive" : "all links inactive (" + message + ")";
    case NvLinkGpuState::Unknown:
      break;
  }
  if (!message.empty()) return message;
  if (elided) return "links elided; none of the " + n + " shown is active";
  if (links.empty()) return "no link lines (output cut short, or another nvlink sub-command)";
  return "link state not readable (" + links.front().value + ")";
}

const NvLinkGpu* NvLinkStatus::find(int index) const {
  for (const auto& g : gpus)
    if (g.index == index) return &g;
  return nullptr;
}

bool looks_like_nvidia_smi_nvlink(std::string_view text) {
  if (text.empty() || looks_binary(text)) return false;
  NvLinkStatus s = Parser().run(text);
  return std::any_of(s.gpus.begin(), s.gpus.end(), [](const NvLinkGpu& g) {
    return g.active_links() + g.inactive_links() > 0 || says_all_inactive(g.message);
  });
}

NvLinkStatus parse_nvidia_smi_nvlink(std::string_view text) {
  if (looks_binary(text)) {
    NvLinkStatus s;
    s.kind = NvLinkStatus::Kind::Binary;
    s.problem = "binary data, not nvidia-smi nvlink output";
    return s;
  }
  return Parser().run(text);
}

}  // namespace gdrcheck
