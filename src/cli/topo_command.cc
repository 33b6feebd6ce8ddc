#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command_errors.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "host/host_state.h"
#include "report/json_text.h"
#include "report/output_style.h"
#include "report/styled_text.h"
#include "report/topo_json.h"
#include "report/topo_text.h"
#include "snapshot/snapshot_root.h"
#include "topology/input_error.h"
#include "topology/path_matrix.h"
#include "topology/topology_loader.h"

namespace gdrcheck {
namespace {

struct TopoOptions {
  std::string root;
  std::string file;
  std::string kind = "auto";
  std::vector<std::string> devices;
  std::vector<std::string> classes;
  bool json = false;
  bool no_bcm_flatten = false;
  std::string color = "auto";
};

DeviceSelection selection_from(const TopoOptions& o) {
  DeviceSelection sel;
  for (const auto& d : o.devices) {
    auto a = PciAddress::parse(d);
    if (!a) throw CLI::ValidationError("--device", "'" + d + "' is not a PCI address (dddd:bb:dd.f)");
    sel.addresses.push_back(*a);
  }
  for (const auto& c : o.classes) {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
      v = std::stoul(c, &used, 16);
    } catch (...) {
      used = 0;
    }
    if (used != c.size() || v == 0 || v > 0xffffff)
      throw CLI::ValidationError("--class", "'" + c + "' is not a PCI class code (e.g. 0x0b40)");
    sel.class_prefixes.push_back(static_cast<uint32_t>(v));
  }
  return sel;
}

int print_topology(const Topology& t, const TopoOptions& o) {
  NcclViewOptions view;
  view.flatten_bcm = !o.no_bcm_flatten;
  TopologyPaths paths = compute_paths(t, view);
  if (o.json) {
    std::optional<std::string> host = t.kind == SourceKind::Sysfs ? root_hostname(Root(t.source)) : std::nullopt;
    std::cout << json_text(topo_json(t, paths, std::chrono::system_clock::now(), host)) << "\n";
  } else {
    OutputStyle style = stdout_output_style(*parse_color_choice(o.color));
    std::cout << styled_text(render_topo_text(t, paths, TextStyle{style.color}), style, TextLayout::Table);
  }
  return kExitOk;
}

// --kind names how a FILE is read; --device and --class place PCI
// functions, which only a PCI tree (sysfs, hwloc XML) has. Given where they
// cannot apply they are refused, not ignored.
void check_topo_combinations(const TopoOptions& o, TopologyFileKind kind) {
  if (o.file.empty() && o.kind != "auto")
    throw CLI::ValidationError("--kind", "forces how a FILE is read; a --root (or this machine) is always sysfs");
  bool selects = !o.devices.empty() || !o.classes.empty();
  if (selects && (kind == TopologyFileKind::NcclXml || kind == TopologyFileKind::SmiText))
    throw CLI::ValidationError(o.devices.empty() ? "--class" : "--device",
                               "places PCI functions, which only sysfs and hwloc XML hold; not --kind " + o.kind);
}

int run_topo(const TopoOptions& o) {
  return run_reporting_errors("topo", [&]() -> int {
    DeviceSelection sel = selection_from(o);
    TopologyFileKind kind{};
    if (!parse_topology_file_kind(o.kind, &kind)) {
      std::cerr << "gdrcheck topo: --kind must be auto, hwloc-xml, nccl-xml or smi-text\n";
      return kExitUsage;
    }
    check_topo_combinations(o, kind);
    std::optional<ExtractedRoot> unpacked;  // a snapshot tarball, unpacked for this run
    const std::string root = o.file.empty() && !o.root.empty() ? resolve_root_argument(o.root, unpacked) : o.root;
    if (o.file.empty() && !o.root.empty()) require_recorded_root(root);
    Topology t =
        o.file.empty() ? load_topology_root(root.empty() ? "/" : root, sel) : load_topology_file(o.file, kind, sel);
    return print_topology(t, o);
  });
}

}  // namespace

CommandRun add_topo_command(CLI::App& app) {
  auto o = std::make_shared<TopoOptions>();
  CLI::App* cmd = app.add_subcommand("topo", "GPU/NIC matrix like nvidia-smi topo -m, plus NCCL's own view");
  cmd->add_option("file", o->file,
                  "hwloc XML, NCCL topology XML or nvidia-smi topo -m text to read instead of a host ('-' = stdin)");
  auto* root = cmd->add_option("--root", o->root, "directory standing for / (a recorded host); default: this machine");
  cmd->add_option("--kind", o->kind, "force the file kind: auto, hwloc-xml, nccl-xml, smi-text")->capture_default_str();
  cmd->add_option("--device", o->devices, "also place this PCI function (dddd:bb:dd.f); repeatable");
  cmd->add_option("--class", o->classes, "also place functions of this PCI class (e.g. 0x0b40); repeatable");
  cmd->add_flag("--json", o->json, "JSON output (schema gdrcheck.topo/1)");
  cmd->add_flag("--no-bcm-flatten", o->no_bcm_flatten, "NCCL's view as before 2.20 (no Broadcom switch flattening)");
  cmd->add_option("--color", o->color, "colour: auto (a terminal, no NO_COLOR, TERM not dumb), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  root->excludes(cmd->get_option("file"));
  return [o] { return run_topo(*o); };
}

int run_topo_file(const std::string& file) {
  TopoOptions o;
  o.file = file;
  return run_topo(o);
}

}  // namespace gdrcheck
