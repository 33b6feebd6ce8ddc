// `gdrcheck node` (also plain `gdrcheck`): the passive check of this node or
// of a recorded root, with a verdict per GPU and findings per check.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "checks/manifest.h"
#include "checks/node_report.h"
#include "cli/command_errors.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/manifest_file.h"
#include "cli/nccl_version_option.h"
#include "cli/output_format.h"
#include "cli/policy_file.h"
#include "host/gds_state.h"
#include "host/host_state.h"
#include "host/user_file.h"
#include "report/json_text.h"
#include "report/node_json.h"
#include "report/node_prometheus.h"
#include "report/node_text.h"
#include "report/output_style.h"
#include "report/terminal_text.h"
#include "snapshot/snapshot_root.h"
#include "topology/input_error.h"
#include "topology/topology_edit.h"
#include "topology/topology_loader.h"

extern char** environ;

namespace gdrcheck {
namespace {

struct NodeCliOptions {
  std::string root = "/";
  std::string topo;                  // --topo FILE: a topology file instead of a root
  std::vector<std::string> assume;   // --assume peermem=ok,...: host facts a topology file lacks
  std::vector<std::string> what_if;  // --what-if "move A under B" or an edit file
  bool quiet = false, verbose = false, no_bcm_flatten = false;
  OutputCli output;
  std::string color = "auto", policy;
  std::vector<std::string> env;
  bool gds = false;  // --gds: GPUDirect Storage findings too
  std::string nccl_version;
  std::string manifest, write_manifest;
};

// Why `path` cannot be a new manifest: it exists (a directory, a link, a
// file the user has) or is the manifest being compared with.
std::string new_file_problem(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "";
  return S_ISDIR(st.st_mode) ? "is a directory" : "already exists; not overwritten";
}

// Writes a new file only: a manifest the user already has is never replaced.
void write_new_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::string problem = errno == EEXIST ? new_file_problem(path) : "";
    throw InputError(path, problem.empty() ? std::strerror(errno) : problem);
  }
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  bool ok = done == text.size() && ::close(fd) == 0;
  if (done != text.size()) ::close(fd);
  if (!ok) throw InputError(path, "write failed");
}

// NCCL_* variables of this process: they are what NCCL would see when run
// from this shell, so they count only when checking this machine.
std::vector<NcclSetting> nccl_settings_from_environment() {
  std::vector<NcclSetting> out;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (kv.rfind("NCCL_", 0) == 0 && eq != std::string::npos)
      out.push_back({kv.substr(0, eq), kv.substr(eq + 1), "environment"});
  }
  return out;
}

HostReadOptions read_options(const NodeCliOptions& o) {
  HostReadOptions r;
  for (const auto& kv : o.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--env", "'" + kv + "' is not NAME=VALUE");
    r.environment.push_back({kv.substr(0, eq), kv.substr(eq + 1), "--env"});
  }
  if (o.root == "/" && o.topo.empty()) {
    auto env = nccl_settings_from_environment();
    r.environment.insert(r.environment.end(), env.begin(), env.end());
    if (const char* home = std::getenv("HOME")) r.home = home;
  }
  return r;
}

// node --gds: CUFILE_ENV_PATH_JSON from --env, else this process's
// environment when checking this machine (as `gds` takes it).
GdsReadOptions gds_read_options(const NodeCliOptions& o) {
  GdsReadOptions r;
  for (const auto& kv : o.env)
    if (kv.rfind("CUFILE_ENV_PATH_JSON=", 0) == 0) r.cufile_env_path = kv.substr(21);
  if (!r.cufile_env_path && o.root == "/")
    if (const char* v = std::getenv("CUFILE_ENV_PATH_JSON")) r.cufile_env_path = v;
  return r;
}

NodeOptions node_options(const NodeCliOptions& o) {
  NodeOptions n;
  if (!o.nccl_version.empty()) n.nccl_version = nccl_version_option(o.nccl_version);
  n.view.flatten_bcm = !o.no_bcm_flatten;
  if (!o.manifest.empty()) n.manifest = load_manifest_file(o.manifest);
  n.policy = load_policy(o.policy);
  return n;
}

// Refused before anything is read: the manifest would be written only at
// the end, after the whole check.
void check_write_manifest(const NodeCliOptions& o) {
  if (o.write_manifest.empty()) return;
  if (o.write_manifest == o.manifest)
    throw CLI::ValidationError("--write-manifest",
                               "'" + o.write_manifest + "' is the --manifest compared with; give a new file");
  if (std::string problem = new_file_problem(o.write_manifest); !problem.empty())
    throw InputError(o.write_manifest, problem);
}

// The report in the format asked for, and the Prometheus file when asked:
// one time for both, so generated_at and the timestamp metric agree.
void print_node(const NodeCliOptions& o, const NodeReport& r, const HostState& h) {
  auto now = std::chrono::system_clock::now();
  switch (o.output.resolved()) {
    case OutputFormat::Json:
      std::cout << json_text(node_json(r, h, now)) << "\n";
      break;
    case OutputFormat::Prometheus:
      std::cout << node_prometheus(r, h, prometheus_stamp(now));
      break;
    case OutputFormat::Text:
      std::cout << render_node_text(
          r, node_text_options(stdout_output_style(*parse_color_choice(o.color)), o.quiet, o.verbose));
      break;
  }
  write_prometheus_file(o.output, node_prometheus(r, h, prometheus_stamp(now)));
}

int run_node(const std::string& root_dir, const NodeCliOptions& o) {
  return run_reporting_errors("node", [&]() -> int {
    require_text_format(o.output, o.quiet || o.verbose, "--quiet/--verbose");
    check_write_manifest(o);
    HostReadOptions ro = read_options(o);
    NodeOptions no = node_options(o);
    std::optional<ExtractedRoot> unpacked;  // a snapshot tarball, unpacked for this run
    const std::string root = resolve_root_argument(root_dir, unpacked);
    require_recorded_root(root);
    Topology t = load_topology_root(root);
    HostState h = read_host_state(Root(root), pci_functions(t), ro);
    std::optional<GdsState> gds;
    if (o.gds) {
      gds = read_gds_state(Root(root), gds_read_options(o));
      no.gds = &*gds;
    }
    NodeReport r = build_node_report(std::move(t), h, no);
    if (unpacked) r.root = root_dir;  // the tarball the user named, not the private directory
    if (!o.write_manifest.empty()) {
      write_new_file(o.write_manifest, json_text(make_manifest(r, h)) + "\n");
      std::cerr << "gdrcheck node: wrote manifest " << safe_line(o.write_manifest) << "\n";
    }
    print_node(o, r, h);
    return exit_code(r.status);
  });
}

// --what-if values: "move A under B" text, or the name of a JSON edit file
// (a value naming an existing file is read as one).
std::vector<DeviceMove> what_if_moves(const std::vector<std::string>& values) {
  std::vector<DeviceMove> out;
  for (const auto& v : values) {
    struct stat st {};
    bool file = v.find("move") == std::string::npos && ::stat(v.c_str(), &st) == 0;
    auto moves = file ? parse_what_if_json(read_user_file(v, 1 << 20, "what-if edit file"), v) : parse_what_if_text(v);
    out.insert(out.end(), moves.begin(), moves.end());
  }
  return out;
}

// The report of the edited topology, holding the moves and the pairs of
// the topology as it was.
NodeReport report_what_if(Topology t, const HostState& h, const NodeOptions& no,
                          const std::vector<std::string>& edits) {
  std::vector<DeviceMove> moves = what_if_moves(edits);
  std::vector<PairVerdict> before = build_node_report(t, h, no).pairs;
  std::vector<AppliedMove> applied = apply_moves(t, moves);
  NodeReport r = build_node_report(std::move(t), h, no);
  for (const auto& a : applied) r.what_if.push_back(a.description);
  r.before_what_if = std::move(before);
  return r;
}

// `node --topo FILE`: the same report from a topology file alone; the host
// facts it lacks are stated with --assume or UNKNOWN (checks/host_assumptions.h).
int run_node_on_topology_file(const NodeCliOptions& o) {
  return run_reporting_errors("node", [&]() -> int {
    require_text_format(o.output, o.quiet || o.verbose, "--quiet/--verbose");
    check_write_manifest(o);
    HostReadOptions ro = read_options(o);
    NodeOptions no = node_options(o);
    try {
      no.topology_file_only = parse_host_assumptions(o.assume);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--assume", e.what());
    }
    Topology t = load_topology_file(o.topo, TopologyFileKind::Auto);
    HostState h = topology_file_host_state(o.topo, ro);
    NodeReport r;
    try {
      r = o.what_if.empty() ? build_node_report(std::move(t), h, no) : report_what_if(std::move(t), h, no, o.what_if);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--what-if", e.what());
    }
    if (!o.write_manifest.empty()) {
      write_new_file(o.write_manifest, json_text(make_manifest(r, h)) + "\n");
      std::cerr << "gdrcheck node: wrote manifest " << safe_line(o.write_manifest) << "\n";
    }
    print_node(o, r, h);
    return exit_code(r.status);
  });
}

}  // namespace

int run_node_on(const std::string& root_dir) {
  return run_node(root_dir, NodeCliOptions{});
}

CommandRun add_node_command(CLI::App& app) {
  auto o = std::make_shared<NodeCliOptions>();
  CLI::App* cmd =
      app.add_subcommand("node", "check this node (or a recorded root) for GPUDirect RDMA: verdict per GPU");
  auto* root = cmd->add_option(
      "--root", o->root, "directory standing for / (a recorded host) or a snapshot .tar.gz; default: this machine");
  auto* topo = cmd->add_option("--topo", o->topo,
                               "judge a topology file instead of a machine: hwloc XML, NCCL topology XML or pasted "
                               "`nvidia-smi topo -m` ('-': stdin)");
  topo->excludes(root);
  cmd->add_option("--assume", o->assume,
                  "with --topo: host facts a topology file lacks, e.g. peermem=ok,ports=active (or all=ok)")
      ->needs(topo);
  cmd->add_option("--what-if", o->what_if,
                  "with --topo: judge the topology with a device moved: \"move 0000:ca:00.0 under 0000:17:00.0\" "
                  "(';' between moves) or a JSON edit file {\"moves\": [{\"device\": ..., \"under\": ...}]}")
      ->needs(topo);
  auto* json = add_output_options(cmd, o->output, "gdrcheck.node/1");
  auto* quiet = cmd->add_flag("-q,--quiet", o->quiet, "print only what is not OK, and the summary");
  auto* verbose = cmd->add_flag("-v,--verbose", o->verbose, "print the evidence of OK findings too");
  // Each shapes the text report its own way; the JSON always holds every
  // finding, so a flag that would change nothing is refused, not ignored.
  quiet->excludes(verbose);
  json->excludes(quiet)->excludes(verbose);
  cmd->add_option("--env", o->env, "NCCL setting NAME=VALUE as the job would have it; repeatable");
  cmd->add_flag("--gds", o->gds,
                "add the GPUDirect Storage findings of `gdrcheck gds` (gds.*) to the report: one health check for both")
      ->excludes(topo);
  cmd->add_option("--nccl-version", o->nccl_version,
                  "predict for this NCCL release (default: the NCCL installed in the root, else the newest known)");
  cmd->add_flag("--no-bcm-flatten", o->no_bcm_flatten,
                "no Broadcom switch flattening (the release decides otherwise: Gen4 from 2.9.6, Gen5 from 2.20.3)");
  cmd->add_option("--manifest", o->manifest, "the site's expected node (JSON): every difference is a finding");
  cmd->add_option("--write-manifest", o->write_manifest, "write this node's manifest to a new file (from a good node)");
  cmd->add_option("--color", o->color, "colour: auto (a terminal, no NO_COLOR, TERM not dumb), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--policy", o->policy, "site policy file (default: /etc/gdrcheck/policy.json when there)");
  return [o] { return o->topo.empty() ? run_node(o->root, *o) : run_node_on_topology_file(*o); };
}

}  // namespace gdrcheck
