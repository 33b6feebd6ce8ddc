#include "checks/finding.h"

namespace gdrcheck {
namespace {

int severity(Status s) {
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

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::Ok:
      return "OK";
    case Status::Warning:
      return "WARNING";
    case Status::Critical:
      return "CRITICAL";
    case Status::Unknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

Status worse(Status a, Status b) {
  return severity(a) >= severity(b) ? a : b;
}

int exit_code(Status s) {
  return static_cast<int>(s);
}

Finding ok(std::string check, std::string subject, std::string summary, std::vector<std::string> evidence) {
  return Finding{std::move(check), std::move(subject), Status::Ok, std::move(summary), std::move(evidence), "", {}};
}

Finding problem(std::string check, std::string subject, Status status, std::string summary,
                std::vector<std::string> evidence, std::string fix) {
  return Finding{std::move(check),    std::move(subject), status, std::move(summary),
                 std::move(evidence), std::move(fix),     {}};
}

Status worst_status(const std::vector<Finding>& findings) {
  Status s = Status::Ok;
  for (const auto& f : findings) s = worse(s, f.status);
  return s;
}

}  // namespace gdrcheck
