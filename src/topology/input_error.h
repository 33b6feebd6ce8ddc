// An input file that is not what it should be (not a topology, truncated,
// binary). Readers throw it; the command line reports "FILE: PROBLEM" and
// exits with UNKNOWN (3). Missing sysfs files are not input errors: they
// become "unknown" values in the model.
#pragma once

#include <stdexcept>
#include <string>

namespace gdrcheck {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string problem)
      : std::runtime_error(file + ": " + problem), file_(std::move(file)), problem_(std::move(problem)) {}
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::string problem_;
};

}  // namespace gdrcheck
