#include <array>
#include <utility>

#include "vnsim/core/collectives.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

constexpr std::array<std::pair<CollectiveOp, const char*>, 8> kOps = {{
    {CollectiveOp::AllReduce, "allreduce"},
    {CollectiveOp::AllGather, "allgather"},
    {CollectiveOp::ReduceScatter, "reducescatter"},
    {CollectiveOp::Broadcast, "broadcast"},
    {CollectiveOp::Reduce, "reduce"},
    {CollectiveOp::AllToAll, "alltoall"},
    {CollectiveOp::SendRecv, "sendrecv"},
    {CollectiveOp::PushPull, "pushpull"},
}};
constexpr std::array<std::pair<CollectiveAlgo, const char*>, 4> kAlgos = {{
    {CollectiveAlgo::Ring, "ring"},
    {CollectiveAlgo::Tree, "tree"},
    {CollectiveAlgo::Hierarchical, "hierarchical"},
    {CollectiveAlgo::Auto, "auto"},
}};

template <typename Table>
std::string accepted(const Table& table) {
  std::string out;
  for (const auto& [value, name] : table) out += (out.empty() ? "" : "|") + std::string(name);
  return out;
}

}  // namespace

std::string to_string(CollectiveOp op) {
  for (const auto& [value, name] : kOps)
    if (value == op) return name;
  return "?";
}

std::string to_string(CollectiveAlgo algo) {
  for (const auto& [value, name] : kAlgos)
    if (value == algo) return name;
  return "?";
}

CollectiveOp parse_collective_op(const std::string& text) {
  for (const auto& [value, name] : kOps)
    if (text == name) return value;
  throw InputError("unknown collective '" + text + "' (expected " + accepted(kOps) + ")");
}

CollectiveAlgo parse_collective_algo(const std::string& text) {
  for (const auto& [value, name] : kAlgos)
    if (text == name) return value;
  throw InputError("unknown collective algorithm '" + text + "' (expected " + accepted(kAlgos) + ")");
}

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::AllReduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::AllGather:
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllToAll:
      return (n - 1) / n;
    case CollectiveOp::Broadcast:
    case CollectiveOp::Reduce:
    case CollectiveOp::SendRecv:
    case CollectiveOp::PushPull:  // each worker's gradient crosses its link once each way
      return 1.0;
  }
  return 1.0;
}

}  // namespace vnsim
