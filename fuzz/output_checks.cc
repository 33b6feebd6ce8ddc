#include "output_checks.h"

#include <cstddef>

#include <nlohmann/json.hpp>

namespace fuzz_checks {

namespace {

// Length of the SGR sequence "ESC [ digits/; m" at text[i], 0 if none.
std::size_t sgr_length(std::string_view text, std::size_t i) {
  std::size_t j = i + 1;
  if (j >= text.size() || text[j] != '[') return 0;
  for (++j; j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == ';'); ++j) {
  }
  return j < text.size() && text[j] == 'm' ? j + 1 - i : 0;
}

}  // namespace

// accept() runs the same parser as parse() without building the document,
// which cost more than the parse itself.
void json_parses_back(std::string_view text) {
  if (!nlohmann::json::accept(text)) __builtin_trap();
}

void text_is_clean(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {
      std::size_t n = sgr_length(text, i);
      if (n == 0) __builtin_trap();
      i += n;
      continue;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) __builtin_trap();
    ++i;
  }
}

}  // namespace fuzz_checks
