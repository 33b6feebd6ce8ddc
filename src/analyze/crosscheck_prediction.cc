#include "analyze/crosscheck_prediction.h"

#include "evidence/nccl_log_messages.h"
#include "host/root.h"
#include "host/text_format.h"
#include "nccl/version_choice.h"

namespace gdrcheck {

HostReadOptions crosscheck_read_options(const NcclLogReport& log, const CrosscheckUser& user) {
  HostReadOptions ro;
  ro.run_nvidia_smi = false;
  ro.environment = user.env;
  for (const auto& e : log.env)
    if (e.name.starts_with("NCCL_"))
      ro.environment.push_back({e.name, e.value, "the log, line " + std::to_string(e.line)});
  return ro;
}

NodeOptions crosscheck_node_options(const NcclLogReport& log, const CrosscheckUser& user, bool topology_file,
                                    std::string* with) {
  NodeOptions no;
  std::string release;
  if (user.nccl_version) {
    no.nccl_version = user.nccl_version;
    release = "NCCL " + user.nccl_version->str() + " (--nccl-version)";
  } else if (auto v = log.nccl_version.empty() ? std::nullopt : version_core(log.nccl_version);
             v && version_with_rules(*v, "the log")) {
    no.nccl_version = v;
    release = "NCCL " + v->str() + " (the log's)";
  } else {
    release = "the newest NCCL rules (the log prints no release gdrcheck has rules for)";
  }
  // The log's run had its NICs and, where it shows GDR, peer memory: the
  // question is the topology's, so the host facts are assumed, not stated.
  if (topology_file) no.topology_file_only = HostAssumptions{};
  std::vector<std::string> settings;
  for (const auto& e : user.env) settings.push_back(e.name + "=" + e.value + " (--env)");
  for (const auto& e : log.env)
    if (e.name.starts_with("NCCL_")) settings.push_back(e.name + "=" + e.value + " (the log's)");
  if (with)
    *with = release + (settings.empty() ? "; no NCCL setting echoed" : "; settings: " + join(settings, ", ")) +
            (topology_file ? "; peer memory and ports assumed" : "");
  return no;
}

namespace {

// A release the user chose over the log's own: differences may be the
// release's, which the block says once.
void release_note(const NcclLogReport& log, const CrosscheckUser& user, Crosscheck& c) {
  auto logged = log.nccl_version.empty() ? std::nullopt : version_core(log.nccl_version);
  if (user.nccl_version && logged && *logged != *user.nccl_version)
    c.notes.push_back("predicted for NCCL " + user.nccl_version->str() + " (--nccl-version), the log ran NCCL " +
                      logged->str() + ": a difference may be the release's");
}

}  // namespace

Crosscheck crosscheck_topology_file(const Topology& t, const std::string& file, const NcclLogReport& log,
                                    const std::string& log_file, const CrosscheckUser& user) {
  std::string with;
  NodeOptions no = crosscheck_node_options(log, user, true, &with);
  HostState h = topology_file_host_state(file, crosscheck_read_options(log, user));
  Crosscheck c = crosscheck(build_node_report(t, h, no), log, file, log_file, with);
  release_note(log, user, c);
  return c;
}

Crosscheck crosscheck_root(const Topology& t, const std::string& root, const NcclLogReport& log,
                           const std::string& log_file, const CrosscheckUser& user) {
  std::string with;
  NodeOptions no = crosscheck_node_options(log, user, false, &with);
  HostState h = read_host_state(Root(root), pci_functions(t), crosscheck_read_options(log, user));
  Crosscheck c = crosscheck(build_node_report(t, h, no), log, root, log_file, with);
  release_note(log, user, c);
  return c;
}

}  // namespace gdrcheck
