#pragma once
// The nodes that have free GPUs, most free first, then by lowest id: the
// order in which Pollux's greedy climb (pollux_climb.cpp) looks for room at
// every move. One bit set per free count, so building it for a search on a
// cluster of hundreds of nodes allocates a few words, where a std::set of
// (free, node) allocated a tree node per node per search (most of the
// climb's cost on Philly). Private to policies/.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "vnsim/core/cluster.hpp"

namespace vnsim {

class NodesByFree {
 public:
  // `free[n]`: node n's free GPUs.
  explicit NodesByFree(const std::vector<int>& free) : words_((free.size() + 63) / 64) {
    for (std::size_t n = 0; n < free.size(); ++n)
      if (free[n] > 0) add(free[n], static_cast<NodeId>(n));
  }

  bool empty() const { return count_ == 0; }

  // Node `node` had `before` free GPUs and now has `after`.
  void change(NodeId node, int before, int after) {
    if (before > 0) remove(before, node);
    if (after > 0) add(after, node);
  }

  // The first (free GPUs, node), in order, for which want(free, node)
  // holds; nullopt when none does.
  template <class Want>
  std::optional<std::pair<int, NodeId>> first(Want want) const {
    for (int f = most(); f >= 1; --f) {
      const std::uint64_t* level = &bits_[static_cast<std::size_t>(f) * words_];
      for (std::size_t w = 0; w < words_; ++w)
        for (std::uint64_t word = level[w]; word != 0; word &= word - 1) {
          const auto node = static_cast<NodeId>(w * 64 + static_cast<std::size_t>(std::countr_zero(word)));
          if (want(f, node)) return std::make_pair(f, node);
        }
    }
    return std::nullopt;
  }

 private:
  int most() const { return static_cast<int>(bits_.size() / std::max<std::size_t>(1, words_)) - 1; }
  std::uint64_t& word_of(int free, NodeId node) {
    return bits_[static_cast<std::size_t>(free) * words_ + static_cast<std::size_t>(node) / 64];
  }
  void add(int free, NodeId node) {
    if (free > most()) bits_.resize(static_cast<std::size_t>(free + 1) * words_, 0);
    word_of(free, node) |= std::uint64_t{1} << (static_cast<std::size_t>(node) % 64);
    ++count_;
  }
  void remove(int free, NodeId node) {
    word_of(free, node) &= ~(std::uint64_t{1} << (static_cast<std::size_t>(node) % 64));
    --count_;
  }

  std::size_t words_;
  std::vector<std::uint64_t> bits_;  // [free count][word]: bit n % 64 of word n / 64 set when node n has it
  std::size_t count_ = 0;
};

}  // namespace vnsim
