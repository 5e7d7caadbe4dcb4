#pragma once
// Stateless hashing for seeded choices that must not depend on the order in
// which jobs are visited.
#include <cstdint>
#include <string_view>

namespace vnsim::traces_detail {

// SplitMix64 finaliser (Steele, Lea, Flood; the constants of java.util.SplittableRandom).
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// FNV-1a, 64-bit.
constexpr std::uint64_t fnv1a64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

inline std::uint64_t hash_seed_and_id(std::uint64_t seed, std::string_view id) {
  return splitmix64(splitmix64(seed) ^ fnv1a64(id));
}

}  // namespace vnsim::traces_detail
