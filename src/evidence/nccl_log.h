// Streaming reader for NCCL / RCCL debug logs (NCCL_DEBUG=INFO) for
// `gdrcheck analyze`: which network NCCL used, whether each network
// connection used GPUDirect RDMA, and the log lines that say why not.
//
// Logs arrive as users keep them: launcher prefixes ("[1,0]<stdout>:",
// "(RayWorkerWrapper pid=1, ip=...)", "0: ", timestamps), masked host names,
// two writers glued into one line, lines cut short, several jobs in one
// file. The parser is fed one line at a time and keeps memory bounded by the
// number of distinct connections, hosts and reasons (and the fixed bound of
// its repeated-line memo), never by the number of lines. Line formats:
// nccl-spec.md §0, §2.7, §3.3, §3.4, §4.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/nccl_line_lexer.h"
#include "evidence/nccl_rank_map.h"
#include "nccl/nccl_version.h"

namespace gdrcheck {

// True when the text (the first KBs of a file) holds NCCL/RCCL INFO/WARN
// records ("... [0] NCCL INFO ...", any prefix) or an "NCCL version" /
// "RCCL version" line. Used to auto-detect the input kind.
bool looks_like_nccl_log(std::string_view head);

// Path-type name ("PHB", "PXB", ...) for a number printed in a "distance
// X > Y" line by NCCL `version` (nccl-spec §1.1); "?" when out of range.
std::string nccl_distance_name(const NcclVersion& version, int value);

// Distinct connections kept; more are only counted (connections_dropped).
inline constexpr std::size_t kNcclMaxConnections = 65536;
// Line numbers kept per reason; all occurrences are counted.
inline constexpr std::size_t kNcclEvidenceLines = 5;

enum class GdrVerdict { Yes, No, Partial, Unknown };
const char* gdr_verdict_name(GdrVerdict v);  // "yes", "no", "partial", "unknown"

enum class NetSide { Send, Receive };
const char* net_side_name(NetSide s);  // "send", "receive"

// One network connection as printed by a channel line, e.g.
// "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0(8)/GDRDMA/Shared".
struct NcclConnection {
  int channel = 0;
  int conn_index = 0;  // k in "Channel cc/k"; 0 when not printed (<= 2.11)
  int from_rank = 0, to_rank = 0;
  // The brackets after the ranks, as printed (NcclChannelLine): bus id up
  // to 2.17, NVML index from 2.18.3; "" when the line had none.
  std::string from_device, to_device;
  NetSide side = NetSide::Send;
  std::string net;  // "IB", "IBext_v8", "AWS Libfabric", "Socket", ...
  int dev = 0;
  std::optional<int> proxy_rank;  // PXN: the rank whose NIC sends
  bool gdr = false;               // "/GDRDMA"
  bool pci = false;               // "(PCI)": GDR through a forced PCIe mapping
  bool shared = false;            // "/Shared"
  std::string host;               // "" when masked or not printed
  std::size_t line = 0;           // first line that showed it (1-based)
};

struct NcclReason {
  std::string code;  // "socket_fallback", "gdr_distance", ...
  std::string message;
  std::vector<std::size_t> lines;  // the first few lines that show it
  std::size_t count = 0;           // all lines that showed it
};

// "NCCL_X set by environment to Y" (or "NCCL_X set to Y") as echoed.
struct NcclEnvEcho {
  std::string name, value;
  std::size_t line = 0;
};

// "Connected all rings, use ring PXN %d GDR %d" (2.24+). Recorded only: it
// is 1 on single-node communicators too, so it proves nothing alone.
struct NcclRingSummary {
  int pxn = 0, gdr = 0;
  std::size_t line = 0;  // first line with these values
  std::size_t count = 0;
};

// A network device's rate as the log prints it (nccl_net_speed.h has the
// forms). One per (host, name), the first line that showed it.
struct NcclNetDeviceSpeed {
  std::string name;         // "mlx5_0"; "mlx5_0+mlx5_1" (merged); "NET/0" (topology dump: no name printed)
  std::optional<int> port;  // when printed
  double speed_mbps = 0;    // megabits per second
  std::string link_layer;   // "IB", "RoCE"; "" when not printed
  std::string host;         // "" when masked or not printed
  std::size_t line = 0;
};

struct NcclLogReport {
  std::string nccl_version;           // first version printed, as printed
  std::vector<std::string> versions;  // every distinct version, in order
  bool rccl = false;
  int ranks = 0;                         // largest nranks printed, else distinct ranks seen
  std::vector<std::string> hosts;        // from line prefixes, sorted; masked ones left out
  std::string net_transport;             // "IB", "Socket", a plugin name; "" unknown
  std::vector<std::string> net_devices;  // "mlx5_0:1/IB" from "NET/IB : Using"
  // The NET/<name> modules the log's messages come from ("OFI", "IB",
  // "Plugin"): loaded or tried, which alone does not say NCCL used them.
  std::vector<std::string> net_modules;
  std::vector<std::string> socket_interfaces;         // "eth0:10.0.0.1<0>"
  std::vector<NcclNetDeviceSpeed> net_device_speeds;  // in order seen; empty when the log prints none
  std::vector<NcclConnection> connections;            // deduplicated, in order seen
  std::size_t net_connections = 0;
  std::size_t gdr_connections = 0;
  std::size_t intra_node_lines = 0;     // P2P / SHM channel lines
  std::size_t connections_dropped = 0;  // distinct connections beyond the cap
  std::vector<NcclRingSummary> ring_summaries;
  GdrVerdict verdict = GdrVerdict::Unknown;
  std::string verdict_why;
  std::vector<NcclReason> reasons;
  std::vector<NcclEnvEcho> env;
  std::size_t lines = 0;      // physical lines fed
  std::size_t records = 0;    // NCCL/RCCL records found in them
  std::size_t cut_lines = 0;  // connection lines cut short (ignored)
  NcclRankMap rank_map;       // each rank's GPU, each process's NET device list

  const NcclReason* reason(std::string_view code) const;      // first with that code
  const NcclEnvEcho* env_value(std::string_view name) const;  // first echo of that name
};

class NcclLogParser {
 public:
  // `assumed` names the NCCL version to translate "distance" numbers with
  // until the log prints its own "NCCL version" line.
  explicit NcclLogParser(std::optional<NcclVersion> assumed = std::nullopt);
  ~NcclLogParser();
  NcclLogParser(NcclLogParser&&) noexcept;
  NcclLogParser& operator=(NcclLogParser&&) noexcept;

  // One physical line, without its newline (a trailing '\r' is ignored).
  void feed(std::string_view line);
  // One line lexed by an NcclLineLexer of the caller's (on another thread,
  // say: nccl_line_lexer.h), in order. A parser is fed either way, never
  // both: the lexer's memo ids are its own.
  void feed(const NcclLexedLine& line);
  // Lines lexed so, several at once (a batch of the reading thread): the
  // same as feeding them one by one, with connection lines read a few
  // lines ahead so the connection index's memory is fetched in time.
  void feed(std::span<const NcclLexedLine> lines);
  // The same, with the connection lines the lexer read ahead among them.
  void feed(const NcclLexedBatch& batch);
  // The report for everything fed so far. May be called more than once,
  // and feeding may go on after it. The line memo, only a cache, is dropped
  // first, so that building the report does not add to its peak memory.
  NcclLogReport finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Feeds `text` line by line.
NcclLogReport parse_nccl_log(std::string_view text, std::optional<NcclVersion> assumed = std::nullopt);

}  // namespace gdrcheck
