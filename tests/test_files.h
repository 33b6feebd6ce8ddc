// Reading back a whole file that a test, or the program it ran, wrote.
// One copy for the tests that each had their own: file-local copies of
// one name collide when a unity build compiles the tests together.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace gdrcheck::testing {

// The text of the file at `path`, or "" when it cannot be opened (the
// test's own checks on the text then fail).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace gdrcheck::testing
