// `gdrcheck gds` (and `node --gds`) on a recorded root another machine or
// user wrote: the GDS facts' own files — the mount table, block stacks,
// nvidia-fs files, cufile.json, the interface address list — holding FIFOs,
// links out of the root, cycles, escape sequences and sizes no real host
// has. The real binary runs on each: it answers in time, prints nothing
// from outside the root and no control byte, and what it could not read is
// UNKNOWN or refused naming the file, never a verdict.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hostile_run.h"
#include "recorded_fixtures.h"

namespace fs = std::filesystem;

namespace gdrcheck::testing {
namespace {

// A copy of the gds-server fixture root inside a HostileDir.
struct HostileGdsRoot {
  HostileDir dir;
  std::string root = dir.in() + "/root";
  HostileGdsRoot() {
    fs::copy(node_root("gds-server"), root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  std::string at(const std::string& relative) const { return root + "/" + relative; }
  void put(const std::string& relative, const std::string& text) const {
    fs::remove(at(relative));
    fs::create_directories(fs::path(at(relative)).parent_path());
    std::ofstream(at(relative)) << text;
  }
  HostileResult gds(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"gds", "--json", "--root", root};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_hostile(args);
  }
};

nlohmann::json reported_finding(const HostileResult& r, const std::string& check, const std::string& subject) {
  auto j = nlohmann::json::parse(r.out);
  for (const auto& f : j["findings"])
    if (f["check"] == check && f["subject"] == subject) return f;
  return nullptr;
}

TEST(HostileGds, MountTableAsFifoOrLinkOutIsRefusedNamingIt) {
  HostileGdsRoot fifo;
  fs::remove(fifo.at("proc/mounts"));
  HostileDir::make_fifo(fifo.at("proc/mounts"));
  EXPECT_TRUE(refused_naming(fifo.gds(), fifo.dir, "proc/mounts"));
  HostileGdsRoot out;
  HostileDir::make_link(out.at("proc/mounts"), out.dir.canary_path());
  EXPECT_TRUE(refused_naming(out.gds(), out.dir, "proc/mounts"));
  HostileGdsRoot climbing;
  fs::remove_all(climbing.at("raid/imagenet"));
  HostileDir::make_link(climbing.at("raid/imagenet"), "../../../../../../../etc");
  EXPECT_TRUE(refused_naming(climbing.gds({"--path", "/raid/imagenet"}), climbing.dir, "raid/imagenet"));
}

TEST(HostileGds, BlockStackCyclesAndDeepChainsEnd) {
  HostileGdsRoot c;
  // md0 lists itself among its members; dm-0..dm-29 each stacked on the next.
  HostileDir::make_link(c.at("sys/devices/virtual/block/md0/slaves/md0"), "../../md0");
  for (int i = 0; i < 30; ++i) {
    std::string d = "sys/devices/virtual/block/dm-" + std::to_string(i);
    c.put(d + "/dm/name", "chain" + std::to_string(i) + "\n");
    c.put(d + "/dm/uuid", "LVM-x\n");
    fs::create_directories(c.at(d + "/slaves"));
    HostileDir::make_link(c.at(d + "/slaves/dm-" + std::to_string(i + 1)), "../../dm-" + std::to_string(i + 1));
    HostileDir::make_link(c.at("sys/class/block/dm-" + std::to_string(i)),
                          "../../devices/virtual/block/dm-" + std::to_string(i));
  }
  c.put("proc/mounts", "/dev/md0 /raid ext4 rw,data=ordered 0 0\n/dev/mapper/chain0 /deep xfs rw 0 0\n");
  HostileResult r = c.gds();
  ASSERT_TRUE(ran_safely(r, c.dir)) << r.describe() << r.err;
  EXPECT_LT(r.elapsed.count(), 15000);
  // No NVMe below the chain: listed, not judged (and not followed forever).
  EXPECT_NE(reported_finding(r, "gds.mount", "other mounts")["summary"].get<std::string>().find("/deep"),
            std::string::npos);
  EXPECT_NE(reported_finding(r, "gds.mount", "/raid")["status"], nullptr);
}

TEST(HostileGds, EscapeSequencesAndBadBytesInMountsAddressesAndCufile) {
  HostileGdsRoot c;
  c.put("proc/mounts",
        "/dev/md0 /raid\\033]0;pwned\\007 ext4 rw,data=ordered 0 0\n"
        "\x1b[2J\xff\xfe /x\x1b[31m xfs rw 0 0\n"
        "srv:/e /nfs\\012fake nfs4 rw,proto=rdma 0 0\n");
  c.put(".gdrcheck/commands/ipv4-addresses.txt", "e\x1b[2Jvil 192.168.60.7\n../../x 10.0.0.1\neno1 999.1.1.1\n");
  c.put("etc/cufile.json", "{\"properties\": {\"rdma_dev_addr_list\": [\"\\u001b[2J10.1.1.1\", \"192.168.60.7\"]}}\n");
  for (const auto& args :
       {std::vector<std::string>{"gds", "--root", c.root}, std::vector<std::string>{"gds", "--json", "--root", c.root},
        std::vector<std::string>{"node", "--gds", "--root", c.root}}) {
    HostileResult r = run_hostile(args);
    EXPECT_TRUE(ran_safely(r, c.dir)) << r.describe() << r.err;
    EXPECT_EQ(r.out.find("pwned\x07"), std::string::npos);
  }
  HostileResult r = c.gds();
  // No interface name that is not plain was believed: the address is not this host's.
  EXPECT_EQ(reported_finding(r, "gds.rdma", "192.168.60.7")["status"], "WARNING");
}

TEST(HostileGds, SizesNoHostHasAreCappedNotFollowed) {
  HostileGdsRoot c;
  std::string table;
  for (int i = 0; table.size() < (9u << 20); ++i)
    table += "overlay /var/lib/docker/overlay2/" + std::to_string(i) + "/merged overlay rw,lowerdir=/a:/b 0 0\n";
  c.put("proc/mounts", table);
  std::string list = "{\"properties\": {\"rdma_dev_addr_list\": [";
  for (int i = 0; i < 20000; ++i)
    list += std::string(i ? "," : "") + "\"10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250) + "\"";
  c.put("etc/cufile.json", list + "]}}\n");
  HostileResult r = c.gds();
  ASSERT_TRUE(ran_safely(r, c.dir)) << r.describe() << r.err;
  EXPECT_LT(r.peak_rss_kib, 1024 * 1024);
  EXPECT_LT(r.elapsed.count(), 20000);
}

}  // namespace
}  // namespace gdrcheck::testing
