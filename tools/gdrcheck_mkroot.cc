// gdrcheck-mkroot: builds a recorded-style root directory from a node
// description (tests/data/nodes/*.json, format in docs/fixtures.md), so that
// `gdrcheck --root OUTDIR` can be run against a GPU node nobody has here.
//
//   gdrcheck-mkroot DESCRIPTION.json OUTDIR [--variant NAME]...
//   gdrcheck-mkroot DESCRIPTION.json --list-variants
//
// Exit codes: 0 built, 2 bad description or unusable OUTDIR (the message
// names the file and the problem), 64 usage error.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "fixture/node_description.h"
#include "fixture/root_builder.h"
#include "topology/input_error.h"

namespace {

constexpr int kExitBuilt = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitUsage = 64;

int list(const std::string& description) {
  for (const auto& v : gdrcheck::fixture::list_variants(description))
    std::cout << v.name << (v.summary.empty() ? "" : "\t" + v.summary) << "\n";
  return kExitBuilt;
}

int build(const std::string& description, const std::string& outdir, const std::vector<std::string>& variants) {
  auto node = gdrcheck::fixture::load_node_description(description, variants);
  auto summary = gdrcheck::fixture::build_root(node, outdir);
  std::string applied;
  for (const auto& v : variants) applied += " +" + v;
  std::cout << "wrote " << outdir << " (" << (node.name.empty() ? description : node.name) << applied
            << "): " << summary.files << " files, " << summary.links << " links\n";
  return kExitBuilt;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gdrcheck-mkroot — build a synthetic sysfs/procfs root from a node description"};
  std::string description, outdir;
  std::vector<std::string> variants;
  bool list_only = false;
  app.add_option("description", description, "node description (JSON)")->required();
  app.add_option("outdir", outdir, "directory to create (must be absent or empty)");
  app.add_option("--variant", variants, "apply a variant defined in the description (repeatable, in order)");
  app.add_flag("--list-variants", list_only, "print the variants the description defines and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (!list_only && outdir.empty()) {
    std::cerr << "gdrcheck-mkroot: OUTDIR is required (or --list-variants)\n";
    return kExitUsage;
  }
  try {
    return list_only ? list(description) : build(description, outdir, variants);
  } catch (const gdrcheck::InputError& e) {
    std::cerr << "gdrcheck-mkroot: " << e.what() << "\n";
    return kExitBadInput;
  }
}
