#include "report/check_list_text.h"

#include "checks/check_catalog.h"
#include "report/column_pad.h"
#include "report/terminal_text.h"
#include "report/text_wrap.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kIdWidth = 10, kStatusWidth = 30;

std::string statuses_text(const std::vector<Status>& statuses) {
  std::string out;
  for (Status s : statuses) out += (out.empty() ? "" : " ") + std::string(status_name(s));
  return out;
}

}  // namespace

std::string render_check_list(const OutputStyle& style) {
  std::string out;
  std::string hang(kIdWidth + kStatusWidth, ' ');
  auto add = [&](const std::string& line) {
    std::string shown = style.utf8 ? line : ascii_text(line);
    out += (style.width > 0 ? wrap_line(shown, static_cast<std::size_t>(style.width), hang) : shown) + "\n";
  };
  add(pad_column("CHECK", kIdWidth) + pad_column("STATUSES", kStatusWidth) + "LOOKS AT");
  for (const auto& c : check_catalog())
    add(pad_column(std::string(c.id), kIdWidth) + pad_column(statuses_text(c.statuses), kStatusWidth) +
        std::string(c.looks_at));
  return terminal_guard(out, false);
}

}  // namespace gdrcheck
