// Substring tests for the texts and notes the code under test produces.
// One copy for the tests that each had their own: file-local copies of
// one name collide when a unity build compiles the tests together.
#pragma once

#include <string>
#include <vector>

namespace gdrcheck::testing {

// `part` occurs in `text`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `part` occurs in one of `lines`.
inline bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (contains(l, part)) return true;
  return false;
}

// `part` occurs in one of the notes a reader attached to what it read
// (any result with a `notes` list of strings).
template <typename WithNotes>
bool has_note(const WithNotes& read, const std::string& part) {
  return any_contains(read.notes, part);
}

}  // namespace gdrcheck::testing
