// numpy's legacy numpy.random.RandomState, bit for bit: MT19937 seeded from a 32-bit integer, and
// the draws whose legacy kernels differ from Generator's (random_sample, uniform, standard_normal by
// the polar method with its cached second value, randint by masked rejection, choice, shuffle).
// dm_control seeds every task with RandomState(seed); reproducing it here gives envhive's envs the
// episodes dm_control plays for the same seed. (numpy's Generator and PCG64 are in rng.h.)
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace envhive {

class RandomState {
 public:
  RandomState() { seed(0); }
  explicit RandomState(uint32_t s) { seed(s); }

  // RandomState(seed): numpy's mt19937_seed (Knuth's initialisation), no cached Gaussian.
  // numpy refuses seeds outside [0, 2**32 - 1]; so does this.
  void seed(uint64_t s) {
    if (s > 0xffffffffull)
      throw std::invalid_argument("numpy.random.RandomState seeds must be in [0, 2**32 - 1], got " +
                                  std::to_string(s));
    uint32_t v = static_cast<uint32_t>(s);
    for (int i = 0; i < kN; ++i) {
      key_[i] = v;
      v = 1812433253u * (v ^ (v >> 30)) + static_cast<uint32_t>(i + 1);
    }
    pos_ = kN;
    has_gauss_ = false;
    gauss_ = 0.0;
  }
  // RandomState(None): numpy's init_by_array over fresh OS entropy (what seed=None gives).
  void seed_from_os() {
    std::random_device rd;
    std::array<uint32_t, kN> words;
    for (auto& w : words) w = rd();
    init_by_array(words.data(), words.size());
    has_gauss_ = false;
    gauss_ = 0.0;
  }

  // The raw stream (mt19937_next32).
  uint32_t next_u32() {
    if (pos_ == kN) generate();
    uint32_t y = key_[pos_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }
  uint64_t next_u64() {
    const uint64_t hi = next_u32();
    return (hi << 32) | next_u32();
  }

  // random_sample() / rand(): 53 bits from two draws.
  double random_sample() {
    const int32_t a = static_cast<int32_t>(next_u32() >> 5), b = static_cast<int32_t>(next_u32() >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }
  // uniform(low, high) for scalars: low + (high - low) * random_sample().
  double uniform(double low, double high) { return low + (high - low) * random_sample(); }
  // standard_normal() / randn(): the polar method; every second value is the one cached by the
  // call before (numpy's legacy_gauss).
  double standard_normal() {
    if (has_gauss_) {
      has_gauss_ = false;
      const double g = gauss_;
      gauss_ = 0.0;
      return g;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * random_sample() - 1.0;
      x2 = 2.0 * random_sample() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss_ = f * x1;
    has_gauss_ = true;
    return f * x2;
  }
  // randint(low, high) (int64, high exclusive): masked rejection sampling on 32-bit draws when the
  // range fits 32 bits, else on 64-bit draws (numpy's random_bounded_uint64_fill, use_masked).
  int64_t randint(int64_t low, int64_t high) {
    if (high <= low) throw std::invalid_argument("randint: low >= high");
    const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) - 1;
    if (range == 0) return low;
    uint64_t value;
    if (range <= 0xffffffffull) {
      if (range == 0xffffffffull) {
        value = next_u32();
      } else {
        const uint32_t mask = static_cast<uint32_t>(mask_of(range));
        while ((value = (next_u32() & mask)) > range) {
        }
      }
    } else if (range == ~0ull) {
      value = next_u64();
    } else {
      const uint64_t mask = mask_of(range);
      while ((value = (next_u64() & mask)) > range) {
      }
    }
    return low + static_cast<int64_t>(value);
  }
  // numpy's random_interval(max): a value in [0, max] by masked rejection (shuffle, permutation).
  uint64_t interval(uint64_t max) {
    if (max == 0) return 0;
    const uint64_t mask = mask_of(max);
    uint64_t value;
    if (max <= 0xffffffffull) {
      while ((value = (next_u32() & mask)) > max) {
      }
    } else {
      while ((value = (next_u64() & mask)) > max) {
      }
    }
    return value;
  }
  // choice(n) (uniform, with replacement): randint(0, n).
  int64_t choice(int64_t n) { return randint(0, n); }
  // shuffle(x) of a 1-d sequence: Fisher-Yates from the back with interval().
  template <class T>
  void shuffle(std::vector<T>& x) {
    for (size_t i = x.size(); i-- > 1;) {
      const size_t j = static_cast<size_t>(interval(i));
      std::swap(x[i], x[j]);
    }
  }

 private:
  static constexpr int kN = 624, kM = 397;

  static uint64_t mask_of(uint64_t max) {
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    return mask;
  }
  void generate() {
    constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrixA = 0x9908b0dfu;
    int i = 0;
    uint32_t y;
    for (; i < kN - kM; ++i) {
      y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + kM] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    }
    for (; i < kN - 1; ++i) {
      y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + (kM - kN)] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    }
    y = (key_[kN - 1] & kUpper) | (key_[0] & kLower);
    key_[kN - 1] = key_[kM - 1] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    pos_ = 0;
  }
  // numpy's mt19937_init_by_array (seeding from an array of words).
  void init_by_array(const uint32_t* init_key, size_t key_length) {
    seed(19650218u);
    size_t i = 1, j = 0;
    for (size_t k = (kN > key_length ? kN : key_length); k; --k) {
      key_[i] = (key_[i] ^ ((key_[i - 1] ^ (key_[i - 1] >> 30)) * 1664525u)) + init_key[j] + static_cast<uint32_t>(j);
      ++i;
      ++j;
      if (i >= kN) {
        key_[0] = key_[kN - 1];
        i = 1;
      }
      if (j >= key_length) j = 0;
    }
    for (size_t k = kN - 1; k; --k) {
      key_[i] = (key_[i] ^ ((key_[i - 1] ^ (key_[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
      ++i;
      if (i >= kN) {
        key_[0] = key_[kN - 1];
        i = 1;
      }
    }
    key_[0] = 0x80000000u;
    pos_ = kN;
  }

  std::array<uint32_t, kN> key_{};
  int pos_ = kN;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

}  // namespace envhive
