// One input of `gdrcheck analyze`: what kind of evidence a file holds, what
// it proves, and the verdict that follows. Files are read as streams, so a
// multi-GB NCCL log costs memory in ranks and connections, not in lines.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/busbw_vs_nics.h"
#include "analyze/perftest_paste.h"
#include "bench/expected_bandwidth.h"
#include "checks/finding.h"
#include "evidence/cufile_log.h"
#include "evidence/gdscheck.h"
#include "evidence/gdsio_output.h"
#include "evidence/ibv_text.h"
#include "evidence/nccl_log.h"
#include "evidence/nccl_tests.h"
#include "topology/path_matrix.h"
#include "topology/topology.h"

namespace gdrcheck {

// TopologyXml: hwloc XML or NCCL's topology dump, read for the cross-check
// with NCCL logs (analyze/crosscheck.h) and judged like a matrix.
// Gdsio: gdsio benchmark output; CufileLog: libcufile's cufile.log.
// Perftest: ib_write_bw/ib_read_bw/ib_send_bw output or its --out_json file.
enum class ArtifactKind {
  NcclLog,
  NcclTests,
  TopoMatrix,
  TopologyXml,
  Ibv,
  Gdscheck,
  Gdsio,
  CufileLog,
  Perftest,
  Unknown
};
// "nccl-log", "nccl-tests", "topo-matrix", "topology-xml", "ibv", "gdscheck", "gdsio", "cufile-log", "perftest",
// "unknown"
const char* artifact_kind_name(ArtifactKind k);
bool parse_artifact_kind(const std::string& text, ArtifactKind* out);  // for --kind

struct Artifact {
  std::string file;
  ArtifactKind kind = ArtifactKind::Unknown;
  std::string error;                      // could not be read, or of no known kind
  std::optional<NcclLogReport> nccl_log;  // nccl-log, and the INFO lines inside nccl-tests output
  std::optional<NcclTestsReport> nccl_tests;
  std::vector<BusbwVsNics> busbw_vs_nics;  // nccl-tests: one per run, in run order
  std::optional<Topology> topology;
  std::optional<TopologyPaths> paths;  // of `topology`, computed once for judges and renderers
  std::optional<IbvReport> ibv;
  std::optional<GdscheckReport> gdscheck;
  std::optional<GdsioReport> gdsio;
  std::optional<CufileLogReport> cufile_log;
  std::optional<PerftestPaste> perftest;  // runs, each with its own verdict
  Status status = Status::Unknown;        // what it proves: OK, WARNING (partial), CRITICAL (GDR not in use), UNKNOWN
  std::string verdict;                    // one line
  std::vector<std::string> notes;
};

// Reads and analyses one file ("-" = standard input). `forced` skips
// detection; `bandwidth` holds the site's figures for relating nccl-tests
// busbw to the NICs (the built-in model when default-constructed).
Artifact analyze_file(const std::string& path, std::optional<ArtifactKind> forced = std::nullopt,
                      const BandwidthOverrides& bandwidth = {});

// Detection from the first bytes of a file.
ArtifactKind detect_artifact_kind(std::string_view head);

// The exit status over all inputs: CRITICAL if any proves GDR is not in
// use, WARNING if partial, OK if everything proven is good, UNKNOWN when
// nothing could be proven or a file could not be read.
Status overall_status(const std::vector<Artifact>& artifacts);

}  // namespace gdrcheck
