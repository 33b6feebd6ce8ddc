// Reader for pasted `ibstat`, `ibv_devinfo` (plain or -v) and `ibstatus`
// text: RDMA devices, their firmware and GUID, and per port the logical and
// physical state, the rate in Gb/s, the link layer and the LID. It accepts
// what users paste: tabs turned into spaces or lost (Markdown), inline-code
// backticks stuck to the first and last lines, `grep`-filtered output
// without the "port:" or "hca_id:" lines, ibwarn/ibpanic noise, redacted
// values ("..."), several commands' output in one file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

enum class IbvKind { Unknown, Ibstat, IbvDevinfo, Ibstatus };
std::string_view to_string(IbvKind kind);  // "unknown", "ibstat", "ibv_devinfo", "ibstatus"

struct IbvPort {
  int port = 0;  // 0 when the text did not say (grep-filtered)
  // Normalised: ACTIVE, DOWN, INIT, ARMED, ACTIVE_DEFER, NOP; the raw text
  // upper-cased when unknown; "" when absent.
  std::string state;
  std::string state_raw;  // "Active", "PORT_ACTIVE (4)"
  // Normalised: LinkUp, Polling, Disabled, Sleep, PortConfigurationTraining,
  // LinkErrorRecovery, PhyTest; "" when absent.
  std::string physical_state;
  std::string physical_state_raw;  // "LinkUp", "LINK_UP (5)"
  // ibstat prints it ("Rate: 400"); for ibv_devinfo -v it is width ×
  // per-lane speed ("4X (2)" × "100.0 Gbps (128)" = 400). nullopt when not
  // printed or not computable (plain ibv_devinfo has no speed).
  std::optional<double> rate_gbps;
  std::string width;        // "4X" (ibv_devinfo -v)
  std::string speed;        // "100.0 Gbps" (ibv_devinfo -v)
  std::string link_layer;   // "InfiniBand", "Ethernet" (RoCE)
  std::optional<long> lid;  // "Base lid" / "port_lid"
  std::optional<long> sm_lid;
  std::optional<long> active_mtu;  // bytes, ibv_devinfo
  std::string port_guid;           // ibstat, as "xxxx:xxxx:xxxx:xxxx" when readable
};

struct IbvDevice {
  std::string name;     // "mlx5_0"; "" when the text had no CA/hca_id line for it
  std::string ca_type;  // ibstat "CA type: MT4129"
  std::string fw;       // "28.39.1002"
  // "xxxx:xxxx:xxxx:xxxx" (the sysfs node_guid form) whichever tool
  // printed it; the raw text when it is not a GUID ("..." redactions).
  std::string node_guid;
  std::string board_id;  // ibv_devinfo "MT_0000000838"
  std::vector<IbvPort> ports;
  bool unreadable = false;  // the tool said it could not read this device (ibpanic)
};

struct IbvReport {
  IbvKind kind = IbvKind::Unknown;  // the first tool recognised
  std::vector<IbvDevice> devices;
  std::vector<std::string> notes;  // missing lines, tool errors, mixed input
};

// True when the text has an `ibstat` "CA '...'" block, an `ibv_devinfo`
// "hca_id:" line, an `ibstatus` "Infiniband device '...' port N status:"
// line, or (grep-filtered) port lines only those tools print.
bool looks_like_ibv_text(std::string_view head);

// Never throws; text that is not ibstat/ibv_devinfo gives no devices and a
// note. Bounded: at most 1024 devices of 64 ports.
IbvReport parse_ibv_text(std::string_view text);

}  // namespace gdrcheck
