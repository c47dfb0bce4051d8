// Plays Craftax-Classic (csrc/envs/craftax/classic_*.cc) from a reset key with the auto-resetting
// step, one line per step: the reward (float32 bits), done, the state (map, player, intrinsics,
// inventory, mobs, plants, achievements, light, key, timestep) and the symbolic observation.
//   classic_step_probe RESET_K0 RESET_K1 ; then stdin: lines "STEP_K0 STEP_K1 ACTION"
#include <bit>
#include <cstdio>
#include <cstdlib>

#include "envs/craftax/classic_state.h"

using namespace envhive::craftax;

static ClassicParams single_env_params() {
  ClassicParams p;
  p.light_reciprocal = false;  // the jitted single-env step (not vmapped)
  return p;
}
static const ClassicParams kParams = single_env_params();

static void print_state(const ClassicState& s) {
  for (auto b : s.map) std::printf("%d ", b);
  std::printf("| %d %d %d %d %d %d %d %d | ", s.player.x, s.player.y, s.direction, s.health, s.food, s.drink, s.energy,
              s.sleeping ? 1 : 0);
  for (float f : {s.recover, s.hunger, s.thirst, s.fatigue, s.light_level}) std::printf("%u ", std::bit_cast<uint32_t>(f));
  std::printf("| ");
  for (auto v : s.inventory) std::printf("%d ", v);
  std::printf("| ");
  for (const Mobs* m : {&s.zombies, &s.cows, &s.skeletons, &s.arrows}) {
    for (size_t i = 0; i < m->mask.size(); ++i)
      std::printf("%d %d %d %d %d ", m->position[i].x, m->position[i].y, m->health[i], m->mask[i], m->cooldown[i]);
    std::printf("| ");
  }
  for (auto d : s.arrow_directions) std::printf("%d %d ", d.x, d.y);
  std::printf("| ");
  for (size_t i = 0; i < s.plant_mask.size(); ++i)
    std::printf("%d %d %d %d ", s.plant_position[i].x, s.plant_position[i].y, s.plant_age[i], s.plant_mask[i]);
  std::printf("| ");
  for (auto a : s.achievements) std::printf("%d ", a);
  std::printf("| %u %u %d | ", s.state_rng.k0, s.state_rng.k1, s.timestep);
  for (auto b : s.mob_map) std::printf("%d ", b);
  std::printf("| ");
  float obs[kClassicSymbolicSize];
  classic_symbolic_obs(s, kParams, obs);
  for (float f : obs) std::printf("%u ", std::bit_cast<uint32_t>(f));
  std::printf("\n");
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const ClassicParams& p = kParams;
  ClassicState s = classic_reset({static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)),
                                  static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10))}, p);
  std::printf("0 0 ");
  print_state(s);
  unsigned k0, k1;
  int action;
  while (std::scanf("%u %u %d", &k0, &k1, &action) == 3) {
    bool done = false;
    const float reward = classic_autoreset_step({k0, k1}, s, action, p, done);
    std::printf("%u %d ", std::bit_cast<uint32_t>(reward), done ? 1 : 0);
    print_state(s);
  }
  return 0;
}
