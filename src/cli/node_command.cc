// `gdrcheck node` (also plain `gdrcheck`): the passive check of this node or
// of a recorded root, with a verdict per GPU and findings per check.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "checks/manifest.h"
#include "checks/node_report.h"
#include "cli/command_errors.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/manifest_file.h"
#include "host/host_state.h"
#include "report/json_text.h"
#include "report/node_json.h"
#include "report/node_text.h"
#include "report/terminal_text.h"
#include "topology/input_error.h"
#include "topology/topology_loader.h"

extern char** environ;

namespace gdrcheck {
namespace {

struct NodeCliOptions {
  std::string root = "/";
  bool json = false, quiet = false, verbose = false, no_bcm_flatten = false;
  std::vector<std::string> env;
  std::string nccl_version;
  std::string manifest, write_manifest;
};

// Writes a new file only: a manifest the user already has is never replaced.
void write_new_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(path, errno == EEXIST ? "already exists; not overwritten" : std::strerror(errno));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) throw InputError(path, "write failed");
}

// NCCL_* variables of this process: they are what NCCL would see when run
// from this shell, so they count only when checking this machine.
std::vector<NcclSetting> process_environment() {
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
  if (o.root == "/") {
    auto env = process_environment();
    r.environment.insert(r.environment.end(), env.begin(), env.end());
    if (const char* home = std::getenv("HOME")) r.home = home;
  }
  return r;
}

NodeOptions node_options(const NodeCliOptions& o) {
  NodeOptions n;
  if (!o.nccl_version.empty()) {
    auto v = NcclVersion::parse(o.nccl_version);
    if (!v) throw CLI::ValidationError("--nccl-version", "'" + o.nccl_version + "' is not a version like 2.21.5");
    if (!version_with_rules(*v, "--nccl-version"))
      throw CLI::ValidationError("--nccl-version", "gdrcheck has no rules for NCCL " + v->str() +
                                                       " (it follows NCCL 2.4 to " + NcclVersion::newest().str() +
                                                       "; newer releases are predicted with the newest rules)");
    n.nccl_version = *v;
  }
  n.view.flatten_bcm = !o.no_bcm_flatten;
  if (!o.manifest.empty()) n.manifest = load_manifest_file(o.manifest);
  return n;
}

int run_node(const std::string& root_dir, const NodeCliOptions& o) {
  return run_reporting_errors("node", [&]() -> int {
    HostReadOptions ro = read_options(o);
    NodeOptions no = node_options(o);
    Topology t = load_topology_root(root_dir);
    HostState h = read_host_state(Root(root_dir), pci_functions(t), ro);
    NodeReport r = build_node_report(std::move(t), h, no);
    if (!o.write_manifest.empty()) {
      write_new_file(o.write_manifest, json_text(make_manifest(r, h)) + "\n");
      std::cerr << "gdrcheck node: wrote manifest " << safe_line(o.write_manifest) << "\n";
    }
    if (o.json)
      std::cout << json_text(node_json(r, h)) << "\n";
    else
      std::cout << render_node_text(r, {static_cast<bool>(::isatty(1)), o.quiet, o.verbose});
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
  cmd->add_option("--root", o->root, "directory standing for / (a recorded host); default: this machine");
  cmd->add_flag("--json", o->json, "JSON output (schema gdrcheck.node/1)");
  cmd->add_flag("-q,--quiet", o->quiet, "print only what is not OK, and the summary");
  cmd->add_flag("-v,--verbose", o->verbose, "print the evidence of OK findings too");
  cmd->add_option("--env", o->env, "NCCL setting NAME=VALUE as the job would have it; repeatable");
  cmd->add_option("--nccl-version", o->nccl_version,
                  "predict for this NCCL release (default: the NCCL installed in the root, else the newest known)");
  cmd->add_flag("--no-bcm-flatten", o->no_bcm_flatten,
                "no Broadcom switch flattening (the release decides otherwise: Gen4 from 2.9.6, Gen5 from 2.20.3)");
  cmd->add_option("--manifest", o->manifest, "the site's expected node (JSON): every difference is a finding");
  cmd->add_option("--write-manifest", o->write_manifest, "write this node's manifest to a new file (from a good node)");
  return [o] { return run_node(o->root, *o); };
}

}  // namespace gdrcheck
