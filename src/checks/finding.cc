#include "checks/finding.h"

#include "checks/severity.h"

namespace gdrcheck {

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
