// The one way a JSON document becomes text for output. Strings in it come
// from other machines (firmware, host names, pasted logs) and may hold
// bytes that are not UTF-8; they are written as U+FFFD instead of making the
// JSON library throw, so `node --json` (which `cluster` runs everywhere)
// never aborts on a hostile byte.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gdrcheck {

inline std::string json_text(const nlohmann::json& j, int indent = 2) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace gdrcheck
