#include "cli/output_format.h"

#include "report/atomic_file.h"

namespace gdrcheck {

OutputFormat OutputCli::resolved() const {
  if (json || format == "json") return OutputFormat::Json;
  if (format == "prometheus") return OutputFormat::Prometheus;
  return OutputFormat::Text;
}

CLI::Option* add_output_options(CLI::App* cmd, OutputCli& o, const std::string& schema) {
  CLI::Option* json = cmd->add_flag("--json", o.json, "JSON output (schema " + schema + "); same as --format json");
  CLI::Option* format = cmd->add_option("--format", o.format,
                                        "output: text, json (schema " + schema + ") or prometheus (docs/prometheus.md)")
                            ->check(CLI::IsMember({"text", "json", "prometheus"}));
  json->excludes(format);
  cmd->add_option("--prometheus-file", o.prometheus_file,
                  "also write the Prometheus text to this file, atomically (node_exporter's textfile collector)");
  return json;
}

void require_text_format(const OutputCli& o, bool given, const std::string& options) {
  if (given && o.resolved() != OutputFormat::Text)
    throw CLI::ValidationError(options, "shape the text output only; not with --format " + o.format);
}

PrometheusStamp prometheus_stamp(std::chrono::system_clock::time_point now) {
  return {GDRCHECK_VERSION,
          static_cast<double>(std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count())};
}

void write_prometheus_file(const OutputCli& o, const std::string& text) {
  if (!o.prometheus_file.empty()) write_file_atomically(o.prometheus_file, text);
}

}  // namespace gdrcheck
