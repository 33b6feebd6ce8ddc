// The output options every reporting command shares: `--format
// text|json|prometheus` (`--json` kept as the short form) and
// `--prometheus-file PATH`, which also writes the Prometheus text for
// node_exporter's textfile collector, atomically (report/atomic_file.h).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

#include "report/prometheus_text.h"

namespace gdrcheck {

enum class OutputFormat { Text, Json, Prometheus };

struct OutputCli {
  bool json = false;
  std::string format = "text";
  std::string prometheus_file;

  OutputFormat resolved() const;
};

// Adds --json, --format and --prometheus-file; `schema` names the JSON
// document in the help ("gdrcheck.node/1"). Returns the --json flag, for
// options that shape the text only to exclude.
CLI::Option* add_output_options(CLI::App* cmd, OutputCli& o, const std::string& schema);

// Options that shape the text output only, refused with another format
// (CLI::ValidationError): a flag that would change nothing is not ignored.
void require_text_format(const OutputCli& o, bool given, const std::string& options);

// The stamp every Prometheus text of one run carries.
PrometheusStamp prometheus_stamp(std::chrono::system_clock::time_point now);

// Writes `text` to --prometheus-file when one was given; throws
// std::runtime_error naming the path when it cannot.
void write_prometheus_file(const OutputCli& o, const std::string& text);

}  // namespace gdrcheck
