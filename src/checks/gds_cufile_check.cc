// `gds.cufile`: the cuFile configuration libcufile reads (platform-spec
// §5.2, §5.7). A setting that turns the direct path off is a finding with
// the file's line; a file that is not JSON is one too, since libcufile
// then runs with its built-in defaults whatever the file meant.
#include <sstream>

#include "checks/gds_checks.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

// The first line that names `key` outside a // comment ("file:12"), for
// evidence; the file itself when the key is not found as written.
std::string line_of(const GdsState& g, const std::string& key) {
  std::string where = g.cufile_path.value_or("cufile.json");
  if (!g.cufile_text) return where;
  std::istringstream in(*g.cufile_text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    auto at = line.find("\"" + key + "\"");
    auto comment = line.find("//");
    if (at != std::string::npos && (comment == std::string::npos || at < comment))
      return where + ":" + std::to_string(n);
  }
  return where;
}

Finding no_file(const GdsState& g) {
  std::vector<std::string> ev;
  for (const auto& s : g.cufile_searched) ev.push_back(printable(s));
  if (g.cufile_path)
    return problem("gds.cufile", "host", Status::Unknown,
                   "cuFile configuration " + printable(*g.cufile_path) + " could not be read: " + g.cufile_problem, ev,
                   "read it as root, or capture it");
  return problem("gds.cufile", "host", Status::Unknown,
                 "no cuFile configuration: GDS is not installed here (its package puts one at "
                 "/usr/local/cuda/gds/cufile.json), or the job names one in CUFILE_ENV_PATH_JSON",
                 ev, "install GDS (the nvidia-gds package), or give the job's CUFILE_ENV_PATH_JSON with --env");
}

Finding unparsed(const CufileConfig& c) {
  std::vector<std::string> ev{printable(c.file) + ": " + printable(c.error)};
  if (c.syntax_error)
    return problem("gds.cufile", "host", Status::Warning,
                   "cuFile configuration " + printable(c.file) +
                       " is not valid JSON: libcufile ignores it and runs with its built-in defaults",
                   ev, "fix the file (JSON with // comments allowed) at the line named");
  return problem("gds.cufile", "host", Status::Unknown,
                 "cuFile configuration " + printable(c.file) + " cannot be judged: " + printable(c.error), ev,
                 "make every key appear once (which one libcufile takes is not known)");
}

void compat(const GdsState& g, const CufileConfig& c, std::vector<Finding>& out) {
  if (c.force_compat_mode.value_or(false)) {
    out.push_back(problem("gds.cufile", "compat", Status::Critical,
                          "compat mode forced: every cuFile read and write goes through host memory, never direct",
                          {line_of(g, "force_compat_mode") + ": \"force_compat_mode\": true"},
                          "set \"force_compat_mode\": false in " + printable(c.file)));
    return;
  }
  std::string key = c.allow_compat_key.empty() ? "allow_compat_mode" : c.allow_compat_key.substr(11);
  if (c.allow_compat_mode.value_or(true))
    out.push_back(ok("gds.cufile", "compat",
                     "compat mode allowed: I/O that cannot go direct falls back to host memory silently "
                     "(`gdrcheck gds --watch` proves which path I/O took)",
                     {line_of(g, key) + (c.allow_compat_mode ? ": \"" + key + "\": true" : ": not set (default)")}));
  else
    out.push_back(ok("gds.cufile", "compat", "compat mode off: I/O that cannot go direct fails instead of falling back",
                     {line_of(g, key) + ": \"" + key + "\": false"}));
}

void p2pdma(const GdsState& g, const CufileConfig& c, std::vector<Finding>& out) {
  bool global = c.use_pci_p2pdma.value_or(false);
  if (global && c.p2pdma_routes.empty())
    out.push_back(problem("gds.cufile", "p2pdma", Status::Warning,
                          "PCI-P2PDMA switched on but for no route: it needs a route key too",
                          {line_of(g, "use_pci_p2pdma") + ": \"use_pci_p2pdma\": true (properties)"},
                          "set \"use_pci_p2pdma\": true under block.nvme (or block.nvmeof, block.raid, fs.virtiofs)"));
  else if (!global && !c.p2pdma_routes.empty())
    out.push_back(problem("gds.cufile", "p2pdma", Status::Warning,
                          "PCI-P2PDMA set for " + join(c.p2pdma_routes, ", ") +
                              " but not switched on in properties: those routes stay off",
                          {line_of(g, "use_pci_p2pdma") + ": properties.use_pci_p2pdma not true"},
                          "set \"use_pci_p2pdma\": true in properties as well"));
  else if (global)
    out.push_back(ok("gds.cufile", "p2pdma", "PCI-P2PDMA on for " + join(c.p2pdma_routes, ", "),
                     {line_of(g, "use_pci_p2pdma") + ": \"use_pci_p2pdma\": true"}));
}

void denied(const GdsState& g, const CufileConfig& c, std::vector<Finding>& out) {
  for (const auto& [list, items] : c.denylist) {
    std::vector<std::string> shown;
    for (const auto& i : items) shown.push_back(printable(i));
    out.push_back(
        problem("gds.cufile", "denylist", Status::Warning, "cuFile denies GDS for " + list + ": " + join(shown, ", "),
                {line_of(g, list) + ": denylist." + list}, "remove them from the denylist if GDS is wanted there"));
  }
}

}  // namespace

std::vector<Finding> check_gds_cufile(const GdsState& g, const std::optional<CufileConfig>& config) {
  if (!config) return {no_file(g)};
  const CufileConfig& c = *config;
  if (!c.parsed) return {unparsed(c)};
  std::vector<Finding> out;
  compat(g, c, out);
  p2pdma(g, c, out);
  denied(g, c, out);
  if (!c.problems.empty()) {
    std::vector<std::string> ev;
    for (const auto& p : c.problems) ev.push_back(printable(p));
    out.push_back(problem("gds.cufile", "types", Status::Warning,
                          std::to_string(c.problems.size()) + " setting(s) of the wrong type: libcufile's reading of "
                                                              "them is not known",
                          ev, "give each the type the cuFile documentation names (true/false, a list of strings)"));
  }
  return out;
}

}  // namespace gdrcheck
