#include "cluster_reports.h"

#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "recorded_fixtures.h"
#include "run_binary.h"

namespace gdrcheck::testing {

std::string node_report_json(const std::string& name, const std::vector<std::string>& variants) {
  static std::map<std::string, std::string> cache;
  static std::mutex mu;
  std::string key = name;
  for (const auto& v : variants) key += "+" + v;
  std::string root = node_root(name, variants);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  RunResult r = run_gdrcheck({"node", "--root", root, "--json"});
  if (r.exit_code < 0 || r.exit_code > 3 || r.out.empty())
    throw std::runtime_error("gdrcheck node --json on " + key + " failed: " + r.err);
  return cache.emplace(key, r.out).first->second;
}

std::string renamed_report(const std::string& report, const std::string& host) {
  nlohmann::json j = nlohmann::json::parse(report);
  j["host"] = host;
  return j.dump(2);
}

NodeOutcome report_outcome(const std::string& host, const std::string& name, const std::vector<std::string>& variants) {
  NodeOutcome o;
  o.host = host;
  o.how = NodeOutcome::How::Report;
  o.raw = renamed_report(node_report_json(name, variants), host);
  nlohmann::json j = nlohmann::json::parse(o.raw);
  o.exit_code = j["status"] == "OK" ? 0 : j["status"] == "WARNING" ? 1 : j["status"] == "CRITICAL" ? 2 : 3;
  return o;
}

void write_file(const std::string& dir, const std::string& file, const std::string& text) {
  std::ofstream out(dir + "/" + file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + dir + "/" + file);
}

}  // namespace gdrcheck::testing
