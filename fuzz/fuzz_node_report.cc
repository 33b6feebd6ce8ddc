// libFuzzer entry point for what `gdrcheck cluster` reads from every host:
// node reports (gdrcheck.node/1 JSON). The input is split at NUL bytes into
// up to 6 reports, each read with read_node_report, then the cluster model
// is built from them (with a manifest when there are several) and rendered
// as text and JSON. Nothing may throw; a refused report must be a node
// without a report and never OK; the JSON must parse back and the text
// must carry no control bytes from the reports.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/cluster_model.h"
#include "cluster/node_report_reader.h"
#include "cluster/node_result.h"
#include "output_checks.h"
#include "report/cluster_json.h"
#include "report/cluster_text.h"
#include "report/json_text.h"

namespace {

// Six reports reach every path of the cluster model (agreement, outliers,
// splits need three or more); sixteen made each run nearly three times slower.
constexpr std::size_t kMaxReports = 6;

const nlohmann::json& site_manifest() {
  static const nlohmann::json m = nlohmann::json::parse(R"({
    "schema": "gdrcheck.manifest/1", "driver": "550.54.15",
    "gpus": {"count": 1, "models": {"L40S": 1}},
    "nics": {"count": 1, "firmware": ["22.39.1002"], "models": {"ConnectX-6 Dx": 1}},
    "pairs": {"GPU0": {"nic": "mlx5_0", "path": "PHB"}},
    "ports": {"link_layer": ["Ethernet"], "rate_gbps": {"100": 1}}})");
  return m;
}

std::vector<gdrcheck::NodeOutcome> outcomes_of(std::string_view text) {
  std::vector<gdrcheck::NodeOutcome> out;
  while (out.size() < kMaxReports) {
    std::size_t nul = text.find('\0');
    gdrcheck::NodeOutcome o;
    o.host = "node" + std::to_string(out.size());
    o.raw = std::string(text.substr(0, nul));
    o.exit_code = 0;
    out.push_back(std::move(o));
    if (nul == std::string_view::npos) break;
    text.remove_prefix(nul + 1);
  }
  return out;
}

void check_model(const gdrcheck::ClusterModel& m, const std::vector<gdrcheck::NodeOutcome>& outcomes) {
  if (m.nodes.size() != outcomes.size()) __builtin_trap();
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const auto& node = m.nodes[i];
    // A report that cannot be read is never judged; a readable one may
    // still be refused (over the per-report caps). Read again only for a
    // node that was judged: reading is most of a run's cost.
    if (node.has_report() && !gdrcheck::read_node_report(outcomes[i].raw).facts.has_value()) __builtin_trap();
    if (!node.has_report() && (node.status == gdrcheck::Status::Ok || node.gdr_ready)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto outcomes = outcomes_of(text);
  gdrcheck::ClusterOptions options;
  options.threads = 1;
  if (outcomes.size() > 1) options.manifest = site_manifest();
  gdrcheck::ClusterModel m = gdrcheck::build_cluster_model(outcomes, options);
  check_model(m, outcomes);

  gdrcheck::ClusterTextOptions text_options;
  text_options.verbose = true;
  text_options.verdict = m.status;
  fuzz_checks::text_is_clean(gdrcheck::render_cluster_text(m, text_options));
  text_options.verbose = false;
  fuzz_checks::text_is_clean(gdrcheck::render_cluster_text(m, text_options));
  gdrcheck::ClusterJsonContext json_context;
  json_context.verdict = m.status;
  fuzz_checks::json_parses_back(gdrcheck::json_text(gdrcheck::cluster_json(m, json_context)));
  return 0;
}
