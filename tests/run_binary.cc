#include "run_binary.h"

#include "host/process.h"

namespace gdrcheck::testing {

RunResult run_gdrcheck(const std::vector<std::string>& args, const std::string& stdin_text) {
  ProcessSpec spec = ProcessSpec::command({GDRCHECK_BINARY});
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdin_text = stdin_text;
  spec.timeout = std::chrono::minutes(5);
  ProcessResult r = run_process(spec);
  RunResult out;
  out.out = std::move(r.out);
  out.err = std::move(r.err);
  switch (r.end) {
    case ProcessResult::End::Exited:
      out.exit_code = r.exit_code;
      break;
    case ProcessResult::End::Signaled:
      out.exit_code = 128 + r.signal;
      break;
    default:
      out.exit_code = -1;
      out.err += "\n[run_gdrcheck] " + r.describe();
  }
  return out;
}

}  // namespace gdrcheck::testing
