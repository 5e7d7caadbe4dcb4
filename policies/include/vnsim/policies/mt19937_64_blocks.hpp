#pragma once
// The 64-bit Mersenne Twister of std::mt19937_64 (Matsumoto and Nishimura,
// "Mersenne Twister: a 623-dimensionally equidistributed uniform
// pseudo-random number generator", ACM TOMACS 1998; the 64-bit parameters
// of Nishimura, ACM TOMACS 2000, as [rand.predef] of the C++ standard fixes
// them): the same seed gives the same sequence, to the bit. It twists the
// whole state and tempers all 312 outputs in one pass of branch-free loops
// that the compiler vectorises, and a draw is an inline array read. Pollux's
// search draws once or more per job per child, and libstdc++'s engine (a
// call per draw, its twist one word at a time) was a sixth of a Pollux
// replay of Philly.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace vnsim {

class Mt19937_64Blocks {
 public:
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  static constexpr result_type default_seed = 5489u;

  explicit Mt19937_64Blocks(result_type seed = default_seed) { this->seed(seed); }

  void seed(result_type value) {
    state_[0] = value;
    for (std::size_t i = 1; i < kN; ++i)
      state_[i] = 6364136223846793005ULL * (state_[i - 1] ^ (state_[i - 1] >> 62)) + i;
    next_ = kN;
  }

  result_type operator()() {
    if (next_ == kN) refill();
    return out_[next_++];
  }

  // Draws in bulk, for a caller that keeps what it draws (Pollux's
  // DrawTape::Recorder): the outputs of the current block not drawn yet
  // are [pending(), block_end()), and drawn_to(p) marks those before p
  // drawn. pending() starts the next block when none is left. The
  // sequence is the one operator() draws.
  const result_type* pending() {
    if (next_ == kN) refill();
    return out_.data() + next_;
  }
  const result_type* block_end() const { return out_.data() + kN; }
  void drawn_to(const result_type* p) { next_ = static_cast<std::size_t>(p - out_.data()); }

 private:
  static constexpr std::size_t kN = 312;
  static constexpr std::size_t kM = 156;
  static constexpr result_type kMatrixA = 0xB5026F5AA96619E9ULL;
  static constexpr result_type kUpper = 0xFFFFFFFF80000000ULL;  // the top 33 bits
  static constexpr result_type kLower = 0x7FFFFFFFULL;          // the low 31

  static result_type twist(result_type upper_of, result_type lower_of, result_type far) {
    const result_type x = (upper_of & kUpper) | (lower_of & kLower);
    return far ^ (x >> 1) ^ ((0 - (x & 1)) & kMatrixA);
  }

  // Out of line, once per 312 draws: a draw then inlines as a compare and
  // an array read (with the twist inlined, operator() was a call per draw).
  [[gnu::noinline]] void refill() {
    // Each half reads only words the other half writes or the old state
    // (i + 1 is not yet written when i is), so each loop runs lane-parallel.
    // The last word's twist reads the new word 0, kept one past the state
    // (state_[kN]): the second half is then 156 alike steps, a whole
    // number of vectors, which -O2's cost model vectorises (155 steps and
    // a last one apart ran one word at a time).
    for (std::size_t i = 0; i < kN - kM; ++i) state_[i] = twist(state_[i], state_[i + 1], state_[i + kM]);
    state_[kN] = state_[0];
    for (std::size_t i = kN - kM; i < kN; ++i)
      state_[i] = twist(state_[i], state_[i + 1], state_[i + kM - kN]);
    for (std::size_t i = 0; i < kN; ++i) {
      result_type y = state_[i];
      y ^= (y >> 29) & 0x5555555555555555ULL;
      y ^= (y << 17) & 0x71D67FFFEDA60000ULL;
      y ^= (y << 37) & 0xFFF7EEE000000000ULL;
      y ^= y >> 43;
      out_[i] = y;
    }
    next_ = 0;
  }

  std::array<result_type, kN + 1> state_{};  // state_[kN]: a copy of state_[0] during refill()
  std::array<result_type, kN> out_{};
  std::size_t next_ = kN;
};

}  // namespace vnsim
