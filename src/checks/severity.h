// How bad a status is, as a number to compare: worse() and the cluster
// model's "worst first" order rank statuses alike because both use this.
#pragma once

#include "checks/finding.h"

namespace gdrcheck {

// CRITICAL 3, WARNING 2, UNKNOWN 1, OK 0.
inline int severity(Status s) {
  switch (s) {
    case Status::Ok:
      return 0;
    case Status::Unknown:
      return 1;
    case Status::Warning:
      return 2;
    case Status::Critical:
      return 3;
  }
  return 1;
}

}  // namespace gdrcheck
