#include "report/gds_json.h"

#include <cstdint>
#include <optional>

#include "report/report_meta.h"

namespace gdrcheck {
namespace {

nlohmann::json number_or_null(const std::optional<std::uint64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The `watch` object of `gds --watch` (docs/json.md).
nlohmann::json watch_json(const GdsWatch& w) {
  using nlohmann::json;
  json j = {{"command", w.command},
            {"outcome", w.outcome},
            {"exit_code", w.exit_code ? json(*w.exit_code) : json(nullptr)},
            {"signal", w.signal ? json(*w.signal) : json(nullptr)},
            {"io_stats", w.io_stats ? json(*w.io_stats) : json(nullptr)},
            {"driver_version", w.driver_version ? json(*w.driver_version) : json(nullptr)},
            {"counts", nullptr}};
  if (w.counts) {
    const GdsWatchCounts& c = *w.counts;
    json errors = json::object();
    for (const auto& [name, by] : c.errors_rose) errors[name] = by;
    j["counts"] = {{"reads", number_or_null(c.reads)},
                   {"reads_ok", number_or_null(c.reads_ok)},
                   {"read_mib", number_or_null(c.read_mib)},
                   {"writes", number_or_null(c.writes)},
                   {"writes_ok", number_or_null(c.writes_ok)},
                   {"write_mib", number_or_null(c.write_mib)},
                   {"batches", number_or_null(c.batches)},
                   {"mmaps", number_or_null(c.mmaps)},
                   {"bar1_maps", number_or_null(c.bar1_maps)},
                   {"errors_rose", errors},
                   {"went_down", c.went_down}};
  }
  json gpus = json::array();
  for (const auto& g : w.gpus) {
    json values = json::object();
    for (const auto& [key, value] : g.values) values[key] = number_or_null(value);
    gpus.push_back({{"bdf", g.bdf}, {"uuid", g.uuid}, {"values", values}});
  }
  j["gpus"] = gpus;
  return j;
}

}  // namespace

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
  if (r.watch) j["watch"] = watch_json(*r.watch);
  add_report_meta(j, report_meta(now, modelled_nccl_rules(), r.host));
  return j;
}

}  // namespace gdrcheck
