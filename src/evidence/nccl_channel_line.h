// One NCCL connection line ("Channel 00/0 : 0[0] -> 8[0] [send] via
// NET/IB/0/GDRDMA", "Ring 00 : 6 -> 2 [send] via NET/IB/0", "Channel 01 :
// 0[7000] -> 1[a000] via P2P/IPC/read"), read by a hand-written scanner
// over the message: no allocation, as most lines of a large job's log
// are these. Formats: nccl-spec.md §4.1 (NET), §4.2 (intra-node).
#pragma once

#include <optional>
#include <string_view>

namespace gdrcheck {

struct NcclChannelLine {
  int channel = 0;
  int conn_index = 0;  // k in "Channel cc/k"; 0 when not printed (<= 2.11)
  int from_rank = 0, to_rank = 0;
  // What the brackets after each rank hold, as printed ("" when none): the
  // GPU's bus id in hex up to NCCL 2.17 ("1b000"), its NVML index from
  // 2.18.3 ("3") (docs/nccl-model.md, "What a log's channel line names").
  std::string_view from_device, to_device;
  bool receive = false;       // "[receive]"; else "[send]" (or no side: intra-node)
  bool net = false;           // a NET/ connection (else P2P, SHM, NVLS)
  std::string_view net_name;  // "IB", "IBext_v8", "AWS Libfabric", "Socket"
  int dev = 0;
  std::optional<int> proxy_rank;  // PXN: the rank whose NIC sends
  bool gdr = false;               // "/GDRDMA"
  bool pci = false;               // "(PCI)"
  bool shared = false;            // "/Shared"
};

// Reads the connection a message (the text after "NCCL INFO") states into
// `out`; false (and `out` unspecified) when it is not a complete
// connection line.
bool read_nccl_channel_line(std::string_view msg, NcclChannelLine& out);

inline std::optional<NcclChannelLine> parse_nccl_channel_line(std::string_view msg) {
  NcclChannelLine c;
  if (!read_nccl_channel_line(msg, c)) return std::nullopt;
  return c;
}

// Whether the message starts as a connection line ("Channel " / "Ring ").
inline bool starts_like_channel_line(std::string_view msg) {
  return msg.starts_with("Channel ") || msg.starts_with("Ring ");
}

// A connection line cut short ("Channel 11/0 : 0[0] ->"): one arrow, and
// either no "via" or a "via" that did not parse. Ring-order lines ("Ring
// 00 : 7 -> 0 -> 1") have two arrows and no "via".
bool looks_like_cut_channel_line(std::string_view msg);

}  // namespace gdrcheck
