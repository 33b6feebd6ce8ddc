// Test-name inference from a table's shape (see nccl_tests_infer.h).
#include "evidence/nccl_tests_infer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace gdrcheck::nccltests {
namespace {

int type_size(const std::string& t) {
  static const std::pair<const char*, int> kSizes[] = {
      {"int8", 1},    {"uint8", 1},    {"char", 1},    {"fp8_e4m3", 1}, {"fp8_e5m2", 1}, {"f8e4m3", 1}, {"f8e5m2", 1},
      {"half", 2},    {"bfloat16", 2}, {"float16", 2}, {"int32", 4},    {"uint32", 4},   {"int", 4},    {"float", 4},
      {"float32", 4}, {"int64", 8},    {"uint64", 8},  {"double", 8},   {"float64", 8}};
  for (const auto& [name, size] : kSizes)
    if (t == name) return size;
  return 0;
}

bool near(double a, double b) {
  return std::fabs(a - b) <= 0.08 * std::max(a, b);
}

// What the table says about its collective, from the row that moved most
// data: size/count gives the rank count for gather-like tests, redop and
// root, whether in-place results are checked, busbw/algbw the bus factor.
struct Shape {
  uint64_t k = 0;     // size / (count × type size); 0 when unknown
  std::size_t n = 0;  // ranks; 0 when unknown
  bool op = false, rooted = false, in_place_unchecked = false, error_era = false;
  double ratio = 0;  // busbw / algbw; 0 when too imprecise
};

std::optional<Shape> table_shape(const NcclTestsRun& run) {
  const NcclTestsRow* big = nullptr;
  for (const auto& r : run.rows)
    if (r.count > 0 && r.size > 0 && r.out_of_place && (!big || r.out_of_place->algbw > big->out_of_place->algbw))
      big = &r;
  if (!big) return std::nullopt;
  Shape s;
  uint64_t ts = static_cast<uint64_t>(type_size(big->type));
  if (ts > 0 && big->count <= UINT64_MAX / ts && big->size % (big->count * ts) == 0)
    s.k = big->size / (big->count * ts);
  s.n = run.ranks.empty() ? (s.k > 1 ? s.k : 0) : run.ranks.size();
  s.op = !big->redop.empty() && big->redop != "none";
  s.rooted = big->root && *big->root >= 0;
  s.in_place_unchecked = big->out_of_place->wrong && (!big->in_place || !big->in_place->wrong);
  s.error_era = run.wrong_column == "error";
  if (big->out_of_place->algbw >= 1.0) s.ratio = big->out_of_place->busbw / big->out_of_place->algbw;
  return s;
}

// The collective the shape fits, "" when more than one does.
std::string name_for(const Shape& s) {
  bool gathered = s.k > 1, plain = s.k == 1;
  if (s.rooted) return s.op ? "reduce_perf" : plain ? "broadcast_perf" : "";
  if (s.op && gathered) return "reduce_scatter_perf";
  if (!s.op && !s.error_era && s.in_place_unchecked) return "alltoall_perf";
  if (!s.op && gathered) return s.error_era ? "" : "all_gather_perf";
  if (!plain) return "";
  if (!s.op) return s.n != 1 ? "sendrecv_perf" : "";
  // all_reduce's bus factor 2(n-1)/n is the only one above 1.
  if (s.ratio > 1.1 ||
      (s.ratio > 0 && s.n > 2 && near(s.ratio, 2.0 * static_cast<double>(s.n - 1) / static_cast<double>(s.n))))
    return "all_reduce_perf";
  return s.in_place_unchecked ? "sendrecv_perf" : "all_reduce_perf";
}

}  // namespace

std::string infer_test_name(const NcclTestsRun& run, std::string* basis) {
  auto shape = table_shape(run);
  if (!shape) return "";
  *basis = "size/count " + (shape->k ? std::to_string(shape->k) : std::string("?")) + ", " +
           (shape->op ? "a reduction" : "no reduction") + (shape->rooted ? ", a root" : "");
  return name_for(*shape);
}

}  // namespace gdrcheck::nccltests
