// libFuzzer entry point for the site files a user gives: the manifest
// (--manifest, gdrcheck.manifest/1) and the bandwidth file
// (--bandwidth-file, gdrcheck.bandwidth/1). The input up to its first NUL is
// read as both; the part after it is a report's inventory to compare with
// the manifest. A manifest is read as load_manifest_file does
// (parse_manifest: the untrusted-JSON reader, then the key and type checks);
// refusals are InputError.
// Anything else is a bug, and so is a valid manifest that differs from
// itself when compared as an inventory.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bench/bandwidth_overrides.h"
#include "checks/manifest.h"
#include "cluster/node_manifest.h"
#include "host/untrusted_json.h"
#include "topology/input_error.h"

namespace {

void check_manifest_text(std::string_view text, std::string_view inventory_text) {
  nlohmann::json manifest;
  try {
    manifest = gdrcheck::parse_manifest(text, "manifest.json");
  } catch (const gdrcheck::InputError&) {
    return;
  }
  for (const auto& f : gdrcheck::compare_with_manifest(manifest, manifest))
    if (f.status != gdrcheck::Status::Ok) __builtin_trap();
  nlohmann::json inventory;
  try {
    inventory = gdrcheck::parse_untrusted_json(inventory_text, "inventory", "inventory");
  } catch (const gdrcheck::InputError&) {
    inventory = nullptr;
  }
  auto findings = gdrcheck::compare_with_manifest(inventory, manifest);
  if (findings.empty()) __builtin_trap();
  // Without an inventory nothing can be compared: UNKNOWN, never OK.
  if (!inventory.is_object() && findings.front().status != gdrcheck::Status::Unknown) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t nul = text.find('\0');
  std::string_view first = text.substr(0, nul);
  std::string_view rest = nul == std::string_view::npos ? std::string_view() : text.substr(nul + 1);
  check_manifest_text(first, rest);
  try {
    (void)gdrcheck::parse_bandwidth_overrides(first, "bandwidth.json");
  } catch (const gdrcheck::InputError&) {
  }
  return 0;
}
