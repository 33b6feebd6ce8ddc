// Reader for pasted `ibstat` / `ibv_devinfo` text.
//
// Both tools print "key: value" lines under a device line and then under a
// port line, indented with tabs. Pastes lose the indentation and filters
// (`| grep -e state -e rate`) drop the device and port lines, so the reader
// goes by keys, not by indentation: a key decides whether it belongs to the
// device or the port, and a port key that is already set on the current
// port starts the next one.
#include "evidence/ibv_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "host/text_numbers.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxIbvDevices = 1024;
constexpr std::size_t kMaxPorts = 64;
constexpr std::size_t kMaxIbvNotes = 50;
constexpr std::size_t kMaxIbvLine = 4096;

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The number in "PORT_ACTIVE (4)" / "LINK_UP (5)".
std::optional<long> paren_number(std::string_view s) {
  std::size_t open = s.rfind('('), close = s.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  return whole_number<long>(s.substr(open + 1, close - open - 1));
}

std::string_view without_paren(std::string_view s) {
  std::size_t open = s.find('(');
  return ascii::trim(open == std::string_view::npos ? s : s.substr(0, open));
}

// "Active" (ibstat), "PORT_ACTIVE (4)" (ibv_devinfo), "4: ACTIVE" (sysfs).
std::string normalize_state(std::string_view raw) {
  static const char* kByNumber[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  std::string u = upper(without_paren(raw));
  if (std::size_t colon = u.find(':'); colon != std::string::npos)
    u = std::string(ascii::trim(std::string_view(u).substr(colon + 1)));
  if (u.starts_with("PORT_")) u = u.substr(5);
  if (u == "INITIALIZING" || u == "INITIALIZE") u = "INIT";
  for (const char* known : kByNumber)
    if (u == known) return u;
  if (auto n = paren_number(raw); n && *n >= 0 && *n <= 5) return kByNumber[*n];
  return u;
}

// "LinkUp" (ibstat), "LINK_UP (5)" (ibv_devinfo), "5: LinkUp" (sysfs).
std::string normalize_physical_state(std::string_view raw) {
  static const char* kByNumber[] = {
      "", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest"};
  std::string key;
  std::string_view v = without_paren(raw);
  if (std::size_t colon = v.find(':'); colon != std::string_view::npos) v = ascii::trim(v.substr(colon + 1));
  for (char c : v)
    if (c != '_' && c != ' ') key += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (int i = 1; i < 8; ++i)
    if (key == upper(kByNumber[i])) return kByNumber[i];
  if (auto n = paren_number(raw); n && *n >= 1 && *n <= 7) return kByNumber[*n];
  return std::string(v);
}

// "0x98039b03009f3e2a" or "9803:9b03:009f:3e2a" → "9803:9b03:009f:3e2a".
std::string normalize_guid(std::string_view raw) {
  std::string hex;
  std::string_view v = ascii::trim(raw);
  if (v.starts_with("0x") || v.starts_with("0X")) v.remove_prefix(2);
  for (char c : v) {
    if (c == ':') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::string(ascii::trim(raw));
    hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (hex.empty() || hex.size() > 16) return std::string(ascii::trim(raw));
  hex.insert(0, 16 - hex.size(), '0');
  return hex.substr(0, 4) + ":" + hex.substr(4, 4) + ":" + hex.substr(8, 4) + ":" + hex.substr(12, 4);
}

// Per-lane rate for generation names some tools print instead of Gbps.
std::optional<double> lane_gbps(std::string_view speed) {
  static const std::pair<const char*, double> kGen[] = {{"SDR", 2.5},  {"DDR", 5},       {"QDR", 10},
                                                        {"FDR10", 10}, {"FDR", 14.0625}, {"EDR", 25},
                                                        {"HDR", 50},   {"NDR", 100},     {"XDR", 200}};
  if (auto v = leading_double(ascii::trim(speed)); v && *v > 0) return v;
  std::string u = upper(without_paren(speed));
  for (const auto& [name, gbps] : kGen)
    if (u == name) return gbps;
  return std::nullopt;
}

// "4X (2)" → 4; "2X (16)" → 2.
std::optional<int> width_lanes(std::string_view width) {
  std::string_view w = without_paren(width);
  if (w.size() < 2 || (w.back() != 'X' && w.back() != 'x')) return std::nullopt;
  auto n = whole_number<long>(w.substr(0, w.size() - 1));
  if (!n || *n <= 0 || *n > 32) return std::nullopt;
  return static_cast<int>(*n);
}

// ------------------------------------------------------------------ lines

struct Line {
  std::string key;    // as printed, trimmed ("Physical state", "phys_state")
  std::string value;  // trimmed
  bool has_colon = false;
};

// Strips mail quoting ("> ") and the backticks of an inline-code span that
// held the whole paste ("`~$ ibstat" ... "Link layer: InfiniBand`"), then
// splits "key: value" at the first colon.
Line split_line(std::string_view raw) {
  std::string_view s = ascii::trim(raw);
  while (!s.empty() && s.front() == '>') s = ascii::trim(s.substr(1));
  while (!s.empty() && s.front() == '`') s = ascii::trim(s.substr(1));
  while (!s.empty() && s.back() == '`') s = ascii::trim(s.substr(0, s.size() - 1));
  Line l;
  std::size_t colon = s.find(':');
  if (colon == std::string_view::npos) {
    l.key = std::string(s);
    return l;
  }
  l.has_colon = true;
  l.key = std::string(ascii::trim(s.substr(0, colon)));
  l.value = std::string(ascii::trim(s.substr(colon + 1)));
  return l;
}

enum class Field {
  None,
  // device
  CaType,
  Firmware,
  NodeGuid,
  BoardId,
  // port
  State,
  PhysState,
  Rate,
  Width,
  Speed,
  LinkLayer,
  Lid,
  SmLid,
  Mtu,
  PortGuid,
};

struct KeyInfo {
  const char* key;
  Field field;
  IbvKind kind;               // which tool prints this key (Unknown: both)
  bool ibstatus_too = false;  // `ibstatus` prints it as well
};

const KeyInfo kKeys[] = {
    {"CA type", Field::CaType, IbvKind::Ibstat},
    {"Firmware version", Field::Firmware, IbvKind::Ibstat},
    {"Node GUID", Field::NodeGuid, IbvKind::Ibstat},
    {"State", Field::State, IbvKind::Ibstat},
    {"Physical state", Field::PhysState, IbvKind::Ibstat},
    {"Rate", Field::Rate, IbvKind::Ibstat},
    {"Base lid", Field::Lid, IbvKind::Ibstat},
    {"SM lid", Field::SmLid, IbvKind::Ibstat},
    {"Port GUID", Field::PortGuid, IbvKind::Ibstat},
    {"Link layer", Field::LinkLayer, IbvKind::Ibstat},
    {"fw_ver", Field::Firmware, IbvKind::IbvDevinfo},
    {"node_guid", Field::NodeGuid, IbvKind::IbvDevinfo},
    {"board_id", Field::BoardId, IbvKind::IbvDevinfo},
    {"state", Field::State, IbvKind::IbvDevinfo, true},
    {"phys_state", Field::PhysState, IbvKind::IbvDevinfo},
    {"active_width", Field::Width, IbvKind::IbvDevinfo},
    {"active_speed", Field::Speed, IbvKind::IbvDevinfo},
    {"link_layer", Field::LinkLayer, IbvKind::IbvDevinfo, true},
    {"port_lid", Field::Lid, IbvKind::IbvDevinfo},
    {"sm_lid", Field::SmLid, IbvKind::IbvDevinfo},
    {"active_mtu", Field::Mtu, IbvKind::IbvDevinfo},
    // ibstatus: "state: 4: ACTIVE", "rate: 100 Gb/sec (4X EDR)", lids in hex.
    {"phys state", Field::PhysState, IbvKind::Ibstatus},
    {"rate", Field::Rate, IbvKind::Ibstatus},
    {"base lid", Field::Lid, IbvKind::Ibstatus},
    {"sm lid", Field::SmLid, IbvKind::Ibstatus},
};

const KeyInfo* find_key(const std::string& key) {
  for (const auto& k : kKeys)
    if (key == k.key) return &k;
  return nullptr;
}

bool is_device_field(Field f) {
  return f == Field::CaType || f == Field::Firmware || f == Field::NodeGuid || f == Field::BoardId;
}

// "CA 'mlx5_0'" → "mlx5_0".
std::optional<std::string> ca_name(const Line& l) {
  if (l.has_colon || !l.key.starts_with("CA '") || l.key.back() != '\'' || l.key.size() < 6) return std::nullopt;
  return l.key.substr(4, l.key.size() - 5);
}

// "Infiniband device 'mlx5_0' port 1 status:" (ibstatus) → {mlx5_0, 1}.
std::optional<std::pair<std::string, int>> ibstatus_port(const Line& l) {
  constexpr std::string_view kHead = "Infiniband device '";
  if (!l.has_colon || !l.value.empty() || !l.key.starts_with(kHead)) return std::nullopt;
  std::string_view rest = std::string_view(l.key).substr(kHead.size());
  std::size_t quote = rest.find('\'');
  if (quote == std::string_view::npos || quote == 0) return std::nullopt;
  std::string_view tail = rest.substr(quote + 1);
  constexpr std::string_view kPort = " port ", kStatus = " status";
  if (!tail.starts_with(kPort) || tail.size() <= kPort.size() + kStatus.size() ||
      tail.substr(tail.size() - kStatus.size()) != kStatus)
    return std::nullopt;
  auto n = whole_number<long>(tail.substr(kPort.size(), tail.size() - kPort.size() - kStatus.size()));
  if (!n || *n < 0 || *n > 255) return std::nullopt;
  return std::make_pair(std::string(rest.substr(0, quote)), static_cast<int>(*n));
}

// "0x1f" (ibstatus) or "31".
std::optional<long> lid_number(std::string_view v) {
  v = without_paren(v);
  if (v.starts_with("0x") || v.starts_with("0X")) {
    long out = 0;
    auto [end, ec] = std::from_chars(v.data() + 2, v.data() + v.size(), out, 16);
    if (ec != std::errc() || end != v.data() + v.size() || v.size() == 2) return std::nullopt;
    return out;
  }
  return whole_number<long>(v);
}

// "Port 1:" (ibstat) → 1.
std::optional<int> ibstat_port(const Line& l) {
  if (!l.has_colon || !l.value.empty() || !l.key.starts_with("Port ")) return std::nullopt;
  auto n = whole_number<long>(std::string_view(l.key).substr(5));
  if (!n || *n < 0 || *n > 255) return std::nullopt;
  return static_cast<int>(*n);
}

// ---------------------------------------------------------------- builder

class Builder {
 public:
  void line(std::string_view raw);
  IbvReport finish();

 private:
  void see(IbvKind kind);
  IbvDevice& device();
  IbvPort& port_for(Field f);
  void start_device(std::string name, IbvKind kind);
  void start_port(int number);
  void set_device(Field f, const std::string& value);
  void on_ibpanic(std::string_view line);
  void drop_unreadable_listed_elsewhere();
  void set_port(Field f, const std::string& value);
  void note(std::string text);

  IbvReport r_;
  bool port_open_ = false;            // the last port of the last device takes port keys
  IbvKind block_ = IbvKind::Unknown;  // the tool whose device line opened the current block
  bool capped_ = false;
  std::size_t implicit_ports_ = 0, implicit_devices_ = 0;
};

void Builder::note(std::string text) {
  if (r_.notes.size() < kMaxIbvNotes && std::find(r_.notes.begin(), r_.notes.end(), text) == r_.notes.end())
    r_.notes.push_back(std::move(text));
}

void Builder::see(IbvKind kind) {
  if (r_.kind == IbvKind::Unknown) r_.kind = kind;
  if (kind != r_.kind) note("the text also holds " + std::string(to_string(kind)) + " output");
}

void Builder::start_device(std::string name, IbvKind kind) {
  see(kind);
  block_ = kind;
  port_open_ = false;
  if (r_.devices.size() >= kMaxIbvDevices) {
    if (!capped_) note("more than " + std::to_string(kMaxIbvDevices) + " devices; the rest are not kept");
    capped_ = true;
    return;
  }
  r_.devices.emplace_back();
  r_.devices.back().name = std::move(name);
}

IbvDevice& Builder::device() {
  if (r_.devices.empty()) {
    ++implicit_devices_;
    r_.devices.emplace_back();
  }
  return r_.devices.back();
}

void Builder::start_port(int number) {
  IbvDevice& d = device();
  if (d.ports.size() >= kMaxPorts) {
    note("a device with more than " + std::to_string(kMaxPorts) + " ports; the rest are not kept");
    port_open_ = true;
    return;
  }
  d.ports.emplace_back();
  d.ports.back().port = number;
  port_open_ = true;
}

bool already_set(const IbvPort& p, Field f) {
  switch (f) {
    case Field::State:
      return !p.state_raw.empty();
    case Field::PhysState:
      return !p.physical_state_raw.empty();
    case Field::Rate:
      return p.rate_gbps.has_value() && p.width.empty();
    case Field::Width:
      return !p.width.empty();
    case Field::Speed:
      return !p.speed.empty();
    case Field::LinkLayer:
      return !p.link_layer.empty();
    case Field::Lid:
      return p.lid.has_value();
    default:
      return false;
  }
}

// The port a port key belongs to; filtered text has no port lines, so a
// key the current port already has means the next (unnumbered) port.
IbvPort& Builder::port_for(Field f) {
  IbvDevice& d = device();
  if (!port_open_ || d.ports.empty() || (already_set(d.ports.back(), f) && d.ports.size() < kMaxPorts)) {
    ++implicit_ports_;
    start_port(0);
  }
  return d.ports.back();
}

// "ibpanic: [pid] main: stat of IB device 'mlx5_8' failed: ...": ibstat
// could not read that device, so nothing is known of its ports.
void Builder::on_ibpanic(std::string_view line) {
  note("ibstat error: " + std::string(line));
  static constexpr std::string_view kTag = "IB device '";
  auto at = line.find(kTag);
  if (at == std::string_view::npos) return;
  std::string_view rest = line.substr(at + kTag.size());
  auto close = rest.find('\'');
  if (close == std::string_view::npos || close == 0 || close > 64) return;
  std::string name(rest.substr(0, close));
  for (auto& d : r_.devices)
    if (d.name == name) return;  // already listed: its own lines say what is known
  start_device(name, r_.kind == IbvKind::Unknown ? IbvKind::Ibstat : r_.kind);
  if (!capped_) r_.devices.back().unreadable = true;
  port_open_ = false;
}

// "..." where a poster elided a value: not a value.
bool is_elided(const std::string& v) {
  return !v.empty() && v.find_first_not_of(". \u2026") == std::string::npos;
}

void Builder::set_device(Field f, const std::string& v) {
  // A GUID keeps its raw text (a redaction is still a value that was
  // printed); a firmware or type of "..." would read as a version.
  if (f != Field::NodeGuid && is_elided(v)) return;
  IbvDevice& d = device();
  if (f == Field::CaType) d.ca_type = v;
  if (f == Field::Firmware) d.fw = v;
  if (f == Field::NodeGuid) d.node_guid = normalize_guid(v);
  if (f == Field::BoardId) d.board_id = v;
}

void update_rate(IbvPort& p) {
  auto lanes = width_lanes(p.width);
  auto lane = lane_gbps(p.speed);
  if (lanes && lane) p.rate_gbps = *lanes * *lane;
}

void Builder::set_port(Field f, const std::string& v) {
  IbvPort& p = port_for(f);
  switch (f) {
    case Field::State:
      p.state_raw = v;
      p.state = normalize_state(v);
      break;
    case Field::PhysState:
      p.physical_state_raw = v;
      p.physical_state = normalize_physical_state(v);
      break;
    case Field::Rate:
      if (auto r = leading_double(v); r && *r > 0) p.rate_gbps = r;
      break;
    case Field::Width:
      p.width = std::string(without_paren(v));
      update_rate(p);
      break;
    case Field::Speed:
      p.speed = std::string(without_paren(v));
      update_rate(p);
      break;
    case Field::LinkLayer:
      p.link_layer = v;
      break;
    case Field::Lid:
      if (auto n = lid_number(v)) p.lid = n;
      break;
    case Field::SmLid:
      if (auto n = lid_number(v)) p.sm_lid = n;
      break;
    case Field::Mtu:
      if (auto n = whole_number<long>(without_paren(v))) p.active_mtu = n;
      break;
    case Field::PortGuid:
      p.port_guid = normalize_guid(v);
      break;
    default:
      break;
  }
}

void Builder::line(std::string_view raw) {
  if (raw.size() > kMaxIbvLine) raw = raw.substr(0, kMaxIbvLine);
  Line l = split_line(raw);
  if (l.key.empty()) return;
  if (auto name = ca_name(l)) return start_device(std::move(*name), IbvKind::Ibstat);
  if (l.key == "hca_id") return start_device(l.value, IbvKind::IbvDevinfo);
  if (auto dev = ibstatus_port(l)) {
    // ibstatus prints one block per port: a second port of the same device
    // joins it.
    if (r_.devices.empty() || r_.devices.back().name != dev->first || block_ != IbvKind::Ibstatus)
      start_device(dev->first, IbvKind::Ibstatus);
    else
      see(IbvKind::Ibstatus);
    block_ = IbvKind::Ibstatus;
    return start_port(dev->second);
  }
  if (auto n = ibstat_port(l)) {
    see(IbvKind::Ibstat);
    return start_port(*n);
  }
  if (l.key == "port" && l.has_colon) {
    auto n = whole_number<long>(l.value);
    see(IbvKind::IbvDevinfo);
    return start_port(n && *n >= 0 && *n <= 255 ? static_cast<int>(*n) : 0);
  }
  if (l.key == "ibpanic" || l.key == "ibwarn") {
    if (l.key == "ibpanic") on_ibpanic(ascii::trim(raw));
    return;
  }
  if (!l.has_colon || capped_) return;
  const KeyInfo* k = find_key(l.key);
  if (!k) return;
  if (!(k->ibstatus_too && block_ == IbvKind::Ibstatus)) see(k->kind);
  if (is_device_field(k->field)) {
    if (port_open_ && k->field != Field::CaType) port_open_ = false;  // next device without a header line
    set_device(k->field, l.value);
  } else {
    set_port(k->field, l.value);
  }
}

// A device ibstat could not read that another tool's output in the same
// paste lists after all (ibstatus, ibv_devinfo) is known from that output.
void Builder::drop_unreadable_listed_elsewhere() {
  std::set<std::string> listed;
  for (const auto& d : r_.devices)
    if (!d.ports.empty()) listed.insert(d.name);
  std::erase_if(r_.devices,
                [&](const IbvDevice& d) { return d.unreadable && d.ports.empty() && listed.count(d.name) > 0; });
}

IbvReport Builder::finish() {
  drop_unreadable_listed_elsewhere();
  if (r_.devices.empty()) note("no ibstat or ibv_devinfo device found");
  if (implicit_devices_) note("ports without a CA/hca_id line (filtered or cut text): device name unknown");
  if (implicit_ports_) note("port lines missing (filtered text): port numbers unknown");
  // A device or port whose lines stop early was cut by the paste: what it
  // would have said is unknown, not down.
  for (const auto& d : r_.devices) {
    std::string name = d.name.empty() ? std::string("a device") : d.name;
    if (d.ports.empty()) note(name + ": no port lines (text cut?): its ports are unknown");
    for (const auto& p : d.ports)
      if (p.state_raw.empty())
        note(name + (p.port ? " port " + std::to_string(p.port) : std::string(" port")) +
             ": no State line (text cut?): its state is unknown");
  }
  for (const auto& d : r_.devices)
    for (const auto& p : d.ports)
      if (p.rate_gbps && p.state != "ACTIVE" && !p.state.empty()) {
        note("rate of a port that is not ACTIVE is not meaningful (drivers report a default)");
        break;
      }
  return std::move(r_);
}

}  // namespace

std::string_view to_string(IbvKind kind) {
  switch (kind) {
    case IbvKind::Ibstat:
      return "ibstat";
    case IbvKind::IbvDevinfo:
      return "ibv_devinfo";
    case IbvKind::Ibstatus:
      return "ibstatus";
    default:
      return "unknown";
  }
}

IbvReport parse_ibv_text(std::string_view text) {
  Builder b;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    b.line(text.substr(start, end - start));
    start = end + 1;
  }
  return b.finish();
}

bool looks_like_ibv_text(std::string_view head) {
  std::size_t start = 0, lines = 0, port_keys = 0;
  while (start < head.size() && lines++ < 400) {
    std::size_t end = std::min(head.find('\n', start), head.size());
    Line l = split_line(head.substr(start, std::min<std::size_t>(end - start, kMaxIbvLine)));
    start = end + 1;
    if (ca_name(l) || (l.key == "hca_id" && !l.value.empty()) || ibstatus_port(l)) return true;
    if (l.key == "Physical state" || l.key == "phys_state" || l.key == "link_layer" || l.key == "Link layer" ||
        l.key == "active_speed")
      ++port_keys;
    if (l.key == "state" && l.value.starts_with("PORT_")) ++port_keys;
    // A fragment ("...", "Port 1:", "State: Down", "Physical state: Polling").
    if (ibstat_port(l)) ++port_keys;
    if (l.key == "State") {
      std::string st = normalize_state(l.value);
      if (st == "ACTIVE" || st == "DOWN" || st == "INIT" || st == "ARMED") ++port_keys;
    }
  }
  return port_keys >= 2;
}

}  // namespace gdrcheck
