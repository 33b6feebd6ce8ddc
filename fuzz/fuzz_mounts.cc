// libFuzzer entry point for the mount table (/proc/mounts of a root, or a
// pasted mount(8) listing): parsed, each block device given a stack chosen
// by its name (NVMe, md RAID0/RAID1 of NVMe, LVM, unknown), judged by the
// gds.mount check in the GDS report (rendered as text and JSON) and again
// with --path.
// Nothing may throw; every finding of the mount check must be gds.mount
// (the report's also gds.driver or gds.cufile); the text must carry no
// control byte; the JSON must parse back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checks/gds_checks.h"
#include "checks/gds_report.h"
#include "host/mounts.h"
#include "output_checks.h"
#include "report/gds_json.h"
#include "report/gds_text.h"
#include "report/json_text.h"

namespace {

using namespace gdrcheck;

BlockDevice nvme(const std::string& name) {
  BlockDevice d;
  d.name = name;
  d.kind = BlockDevice::Kind::NvmeNamespace;
  d.transport = name.size() % 3 ? "pcie" : "rdma";
  return d;
}

// A stack picked by the device name, so the fuzzer reaches every judge.
BlockDevice stack_for(const std::string& device) {
  BlockDevice d;
  d.name = device;
  switch (device.size() % 5) {
    case 0:
      return nvme(device);
    case 1:
      d.kind = BlockDevice::Kind::Md;
      d.level = device.size() % 2 ? "raid0" : "raid1";
      d.below = {nvme(device + "a"), nvme(device + "b")};
      return d;
    case 2:
      d.kind = BlockDevice::Kind::DeviceMapper;
      d.dm_kind = "LVM";
      d.below = {nvme(device)};
      return d;
    case 3:
      d.kind = BlockDevice::Kind::Partition;
      d.below = {nvme(device)};
      return d;
    default:
      d.problem = device + ": not readable";
      return d;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  GdsState g;
  g.nvidia_gpus = 1;
  g.nvidia_fs_loaded = size % 2;
  g.backends = std::vector<NvidiaFsBackend>{{"nvme", "2.26"}, {"lnet", "2.26"}};
  g.mounts = parse_mounts(text);
  for (const auto& m : g.mounts->mounts)
    if (m.device.rfind("/dev/", 0) == 0 && g.block_stacks.size() < 64) g.block_stacks[m.device] = stack_for(m.device);
  // The report without --path judges every mount; rendered, it carries
  // every string the mount table gave.
  GdsReport r = build_gds_report(g, "host");
  for (const auto& f : r.findings)
    if (f.check != "gds.mount" && f.check != "gds.driver" && f.check != "gds.cufile") __builtin_trap();
  fuzz_checks::text_is_clean(render_gds_text(r));
  fuzz_checks::json_parses_back(json_text(gds_json(r)));
  // With --path only the mount that holds it is judged: its finding is
  // checked, not rendered again.
  if (!g.mounts->mounts.empty()) g.path = g.mounts->mounts.front().mountpoint + "/data";
  for (const auto& f : check_gds_mounts(g, std::nullopt))
    if (f.check != "gds.mount") __builtin_trap();
  return 0;
}
