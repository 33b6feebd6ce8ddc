// Nagios/NHC exit codes, shared by every command.
#pragma once

namespace gdrcheck {

enum ExitCode : int {
  kExitOk = 0,
  kExitWarning = 1,
  kExitCritical = 2,
  kExitUnknown = 3,  // could not be determined (bad input, unreadable evidence)
  kExitUsage = 64,
};

}  // namespace gdrcheck
