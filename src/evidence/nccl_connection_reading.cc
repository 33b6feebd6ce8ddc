#include "evidence/nccl_connection_reading.h"

namespace gdrcheck {

NcclConnectionKey nccl_connection_key(const NcclChannelLine& c, std::string_view host, std::string_view pid) {
  return {c.channel,  c.conn_index, c.from_rank, c.to_rank, c.receive ? 1 : 0, c.dev, c.proxy_rank.value_or(-1),
          c.net_name, host,         pid};
}

bool read_connection_ahead(const NcclRecord& r, NcclConnectionReading& out, const NcclConnectionKeyHasher& hash) {
  if (!starts_like_channel_line(r.msg)) return false;
  out.msg = r.msg;
  out.complete = read_nccl_channel_line(r.msg, out.line);
  if (out.complete && out.line.net) out.key_hash = hash(nccl_connection_key(out.line, r.host, r.pid));
  return true;
}

}  // namespace gdrcheck
