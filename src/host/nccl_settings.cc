// nccl.conf parsing as NCCL itself does it (misc/param.cc:setEnvFile,
// nccl-spec.md §0): each line up to the first '=' is the variable name and
// everything after it the value, passed to setenv() without overwriting.
// NCCL trims nothing and knows no comments except a '#' in column 0, so
// "NCCL_X = 1" sets a variable called "NCCL_X " that nothing reads. We keep
// exactly what NCCL keeps and report every line that does not do what it
// appears to do.
#include "host/nccl_settings.h"

#include "host/text_format.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

bool has_space(std::string_view s) {
  for (char c : s)
    if (ascii::is_space(c)) return true;
  return false;
}

struct LineParser {
  const std::string& origin;
  std::vector<std::string>* problems;
  bool crlf_reported = false;

  void problem(int line, const std::string& text) {
    if (problems) problems->push_back(origin + ":" + std::to_string(line) + ": " + text);
  }

  // A line NCCL would not turn into the setting it seems to name.
  std::optional<NcclSetting> parse(std::string_view line, int number) {
    bool cr = !line.empty() && line.back() == '\r';
    if (cr) {
      // NCCL 2.30.3+ strips one CR; older releases keep it in the value
      // (settings_seen_by puts it back for them).
      line.remove_suffix(1);
      if (!crlf_reported) problem(number, "Windows (CRLF) line endings: older NCCL releases keep the CR in each value");
      crlf_reported = true;
    }
    std::string_view body = ascii::trim(line);
    if (body.empty() || body.front() == '#') return std::nullopt;
    std::size_t eq = line.find('=');
    std::string quoted = "'" + std::string(line) + "'";
    if (eq == std::string_view::npos) {
      problem(number, "not NAME=VALUE, NCCL ignores it: " + quoted);
      return std::nullopt;
    }
    std::string_view name = line.substr(0, eq), value = line.substr(eq + 1);
    if (ascii::trim(name).starts_with("export ")) {
      problem(number, "not NAME=VALUE (shell 'export' syntax; NCCL would set a variable named '" + std::string(name) +
                          "'): " + quoted);
      return std::nullopt;
    }
    if (name.empty() || has_space(name)) {
      problem(number, "not NAME=VALUE: NCCL does not trim, so it sets a variable named '" + std::string(name) +
                          "' and " + std::string(ascii::trim(name)) + " stays unset: " + quoted);
      return std::nullopt;
    }
    check_value(name, value, number);
    return NcclSetting{std::string(name), std::string(value), origin + ":" + std::to_string(number), cr};
  }

  void check_value(std::string_view name, std::string_view value, int number) {
    std::string shown = std::string(name) + " is '" + std::string(value) + "'";
    if (value.find('#') != std::string_view::npos)
      problem(number, "nccl.conf has no end-of-line comments: " + shown);
    else if (ascii::trim(value) != value)
      problem(number, "value keeps its surrounding spaces in NCCL: " + shown);
  }
};

}  // namespace

const NcclSetting* NcclSettings::find(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

std::vector<NcclSetting> parse_nccl_conf(std::string_view text, const std::string& origin,
                                         std::vector<std::string>* problems) {
  std::vector<NcclSetting> out;
  LineParser parser{origin, problems};
  int number = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (auto s = parser.parse(line, ++number)) out.push_back(std::move(*s));
  }
  return out;
}

NcclSettings merge_nccl_settings(const std::vector<std::vector<NcclSetting>>& layers_first_wins) {
  // setenv(..., overwrite=0) everywhere: whatever was set first stays, which
  // also makes the first of two lines in one file win.
  NcclSettings out;
  for (const auto& layer : layers_first_wins)
    for (const auto& s : layer)
      if (s.name.starts_with("NCCL_")) out.values.try_emplace(s.name, s);
  return out;
}

std::string NcclSetting::cite() const {
  return printable(name) + "=" + printable(value) + " (from " + printable(origin) + ")";
}

}  // namespace gdrcheck
