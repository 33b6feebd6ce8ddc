#include "report/gds_json.h"

#include "report/report_meta.h"

namespace gdrcheck {

nlohmann::json gds_json(const GdsReport& r, std::chrono::system_clock::time_point now) {
  using nlohmann::json;
  json findings = json::array();
  for (const auto& f : r.findings)
    findings.push_back({{"check", f.check},
                        {"subject", f.subject},
                        {"status", status_name(f.status)},
                        {"summary", f.summary},
                        {"evidence", f.evidence},
                        {"fix", f.fix.empty() || f.status == Status::Ok ? json(nullptr) : json(f.fix)}});
  json j = {{"schema", "gdrcheck.gds/1"},
            {"host", r.host},
            {"root", r.root},
            {"status", status_name(r.status)},
            {"cufile", r.cufile.empty() ? json(nullptr) : json(r.cufile)},
            {"findings", findings}};
  add_report_meta(j, report_meta(now, modelled_nccl_rules(), r.host));
  return j;
}

}  // namespace gdrcheck
