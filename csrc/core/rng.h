// numpy's default generator, bit for bit: SeedSequence -> PCG64 (XSL-RR 128/64) -> random(),
// integers() and shuffle().
// Gymnasium seeds each env with np.random.Generator(PCG64(SeedSequence(seed))); reproducing it
// here makes envhive's resets identical to Gymnasium's for the same seed, not merely similar.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace envhive {

class SeedSequence {
 public:
  // entropy: a non-negative integer given as little-endian 32-bit words (numpy's coercion).
  explicit SeedSequence(const std::vector<uint32_t>& entropy) {
    constexpr uint32_t kInitA = 0x43b0d7e5u;
    uint32_t hash_const = kInitA;
    auto hashmix = [&hash_const](uint32_t value) {
      constexpr uint32_t kMultA = 0x931e8875u;
      value ^= hash_const;
      hash_const *= kMultA;
      value *= hash_const;
      value ^= value >> 16;
      return value;
    };
    auto mix = [](uint32_t x, uint32_t y) {
      uint32_t result = 0xca01f9ddu * x - 0x4973f715u * y;
      result ^= result >> 16;
      return result;
    };
    for (size_t i = 0; i < pool_.size(); ++i) pool_[i] = hashmix(i < entropy.size() ? entropy[i] : 0u);
    for (size_t src = 0; src < pool_.size(); ++src)
      for (size_t dst = 0; dst < pool_.size(); ++dst)
        if (src != dst) pool_[dst] = mix(pool_[dst], hashmix(pool_[src]));
    for (size_t src = pool_.size(); src < entropy.size(); ++src)
      for (size_t dst = 0; dst < pool_.size(); ++dst) pool_[dst] = mix(pool_[dst], hashmix(entropy[src]));
  }

  static SeedSequence from_u64(uint64_t seed) {
    std::vector<uint32_t> words{static_cast<uint32_t>(seed)};
    if (seed >> 32) words.push_back(static_cast<uint32_t>(seed >> 32));
    return SeedSequence(words);
  }

  // generate_state(n_words, np.uint64)
  std::vector<uint64_t> generate_state_u64(size_t n_words) const {
    std::vector<uint32_t> state(n_words * 2);
    uint32_t hash_const = 0x8b51f9ddu;
    for (size_t i = 0; i < state.size(); ++i) {
      uint32_t v = pool_[i % pool_.size()];
      v ^= hash_const;
      hash_const *= 0x58f38dedu;
      v *= hash_const;
      v ^= v >> 16;
      state[i] = v;
    }
    std::vector<uint64_t> out(n_words);
    for (size_t i = 0; i < n_words; ++i)
      out[i] = static_cast<uint64_t>(state[2 * i]) | (static_cast<uint64_t>(state[2 * i + 1]) << 32);
    return out;
  }

 private:
  std::array<uint32_t, 4> pool_{};
};

class Pcg64 {
 public:
  Pcg64() { seed(0); }
  explicit Pcg64(uint64_t s) { seed(s); }

  void seed(uint64_t s) { seed(SeedSequence::from_u64(s)); }
  void seed(const SeedSequence& seq) {
    auto v = seq.generate_state_u64(4);
    const u128 initstate = (static_cast<u128>(v[0]) << 64) | v[1];
    const u128 initseq = (static_cast<u128>(v[2]) << 64) | v[3];
    state_ = 0;
    has_u32_ = false;
    u32_ = 0;
    inc_ = (initseq << 1) | 1u;
    step();
    state_ += initstate;
    step();
  }
  // Fresh entropy, for seed=None.
  void seed_from_os() {
    std::random_device rd;
    std::vector<uint32_t> words(4);
    for (auto& w : words) w = rd();
    seed(SeedSequence(words));
  }

  uint64_t next_u64() {
    step();
    const u128 cur = state_;
    const uint64_t hi = static_cast<uint64_t>(cur >> 64);
    const uint64_t lo = static_cast<uint64_t>(cur);
    const unsigned rot = static_cast<unsigned>(cur >> 122);
    const uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((64u - rot) & 63u));
  }
  // numpy's next_uint32 for PCG64: the low half of a 64-bit draw, its high half kept for the next
  // call. The kept half belongs to the generator (next_u64 leaves it alone), so a 32-bit draw
  // after any number of 64-bit draws still returns it, as in numpy.
  uint32_t next_u32() {
    if (has_u32_) {
      has_u32_ = false;
      return u32_;
    }
    const uint64_t next = next_u64();
    has_u32_ = true;
    u32_ = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next);
  }
  // Generator.random(): 53 random bits in [0, 1).
  double next_double() { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
  // Generator.uniform(low, high): low + (high - low) * random().
  double uniform(double low, double high) { return low + (high - low) * next_double(); }

  // Generator.integers(low, high) (int64, high exclusive): numpy's Lemire rejection sampler on
  // 32-bit draws when the range fits in 32 bits, else on 64-bit draws; an empty range draws nothing.
  // Throws std::invalid_argument for low >= high, as numpy raises ValueError.
  int64_t integers(int64_t low, int64_t high) {
    if (low >= high) throw std::invalid_argument("integers: low >= high");
    const uint64_t rng = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) - 1u;
    return static_cast<int64_t>(static_cast<uint64_t>(low) + bounded(rng));
  }
  // numpy's random_interval(max): a value in [0, max] by masked rejection (Generator.shuffle and
  // permutation draw their swaps with it).
  uint64_t interval(uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max;
    for (unsigned shift = 1; shift <= 32; shift <<= 1) mask |= mask >> shift;
    uint64_t value;
    if (max <= 0xffffffffULL) {
      while ((value = (next_u32() & mask)) > max) {
      }
    } else {
      while ((value = (next_u64() & mask)) > max) {
      }
    }
    return value;
  }
  // Generator.shuffle of a sequence of n items (a list or a 1-d array): Fisher-Yates from the back.
  template <class T>
  void shuffle(T* items, size_t n) {
    for (size_t i = n; i-- > 1;) {
      const size_t j = static_cast<size_t>(interval(i));
      std::swap(items[i], items[j]);
    }
  }

 private:
  using u128 = unsigned __int128;
  // random_bounded_uint64_fill for one value in [0, rng].
  uint64_t bounded(uint64_t rng) {
    if (rng == 0) return 0;
    if (rng == 0xffffffffULL) return next_u32();
    if (rng < 0xffffffffULL) {
      const uint32_t rng32 = static_cast<uint32_t>(rng), excl = rng32 + 1u;
      uint64_t m = static_cast<uint64_t>(next_u32()) * excl;
      uint32_t leftover = static_cast<uint32_t>(m);
      if (leftover < excl) {
        const uint32_t threshold = (0xffffffffu - rng32) % excl;
        while (leftover < threshold) {
          m = static_cast<uint64_t>(next_u32()) * excl;
          leftover = static_cast<uint32_t>(m);
        }
      }
      return m >> 32;
    }
    if (rng == ~0ULL) return next_u64();
    const uint64_t excl = rng + 1;
    u128 m = static_cast<u128>(next_u64()) * excl;
    uint64_t leftover = static_cast<uint64_t>(m);
    if (leftover < excl) {
      const uint64_t threshold = (~0ULL - rng) % excl;
      while (leftover < threshold) {
        m = static_cast<u128>(next_u64()) * excl;
        leftover = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  static constexpr u128 kMult = (static_cast<u128>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;
  void step() { state_ = state_ * kMult + inc_; }
  u128 state_ = 0, inc_ = 0;
  bool has_u32_ = false;  // numpy's has_uint32 / uinteger: the kept half of a 64-bit draw
  uint32_t u32_ = 0;
};

}  // namespace envhive
