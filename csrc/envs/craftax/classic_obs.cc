// Craftax-Classic's symbolic observation (render_craftax_symbolic): a 7 x 9 view of one-hot blocks
// and mob flags, then inventory and intrinsics (float16 / 10), direction, light level, sleeping.
#include <bit>
#include <cstring>

#include "classic_state.h"

namespace envhive::craftax {

namespace {

// float32 -> float16 (round to nearest even) -> float32, for the normal values the observation has.
float through_half(float v) {
  if (v == 0.0f) return 0.0f;
  uint32_t bits = std::bit_cast<uint32_t>(v);
  const uint32_t lower = bits & 0x1FFFu, keep = bits & ~0x1FFFu;
  const bool round_up = lower > 0x1000u || (lower == 0x1000u && (keep & 0x2000u));
  bits = keep + (round_up ? 0x2000u : 0u);
  return std::bit_cast<float>(bits);
}

}  // namespace

void classic_symbolic_obs(const ClassicState& s, const ClassicParams& p, float* out) {
  constexpr int kW = 7, kH = 9, kChannels = kClassicBlockTypes + 4;
  std::memset(out, 0, sizeof(float) * kClassicSymbolicSize);
  for (int i = 0; i < kW; ++i)
    for (int j = 0; j < kH; ++j) {
      const Vec2 v{s.player.x - kW / 2 + i, s.player.y - kH / 2 + j};
      const uint8_t block = classic::in_bounds(p, v) ? s.map[static_cast<size_t>(v.x) * p.height + v.y] : kOutOfBounds;
      out[(i * kH + j) * kChannels + block] = 1.0f;
    }
  const Mobs* kinds[4] = {&s.zombies, &s.cows, &s.skeletons, &s.arrows};
  for (int k = 0; k < 4; ++k) {
    const Mobs& m = *kinds[k];
    for (size_t n = 0; n < m.mask.size(); ++n) {
      const Vec2 local = m.position[n] - s.player + Vec2{kW / 2, kH / 2};
      const bool on_screen = local.x >= 0 && local.x < kW && local.y >= 0 && local.y < kH && m.mask[n];
      int x, y;  // a write at JAX's index: negative counts from the end, outside is dropped
      if (classic::write_index(local.x, kW, x) && classic::write_index(local.y, kH, y))
        out[(x * kH + y) * kChannels + kClassicBlockTypes + k] = on_screen ? 1.0f : 0.0f;
    }
  }
  float* tail = out + kW * kH * kChannels;
  // x.astype(float16) / 10.0: XLA multiplies by the float16 reciprocal of 10 (0.0999755859375).
  constexpr float kHalfTenth = 0.0999755859375f;
  for (int i = 0; i < kClassicItems; ++i) *tail++ = through_half(static_cast<float>(s.inventory[i]) * kHalfTenth);
  for (int32_t v : {s.health, s.food, s.drink, s.energy}) *tail++ = through_half(static_cast<float>(v) * kHalfTenth);
  for (int d = 0; d < 4; ++d) *tail++ = s.direction - 1 == d ? 1.0f : 0.0f;
  // XLA computes the observation's light level again inside the observation's fusion, where it
  // fuses 1 - c * c^2 into a multiply-add (the state's own value, after a step, is unfused).
  *tail++ = s.timestep == 0 ? s.light_level : classic::light_level_at(s.timestep, p, true);
  *tail++ = s.sleeping ? 1.0f : 0.0f;
}

}  // namespace envhive::craftax
