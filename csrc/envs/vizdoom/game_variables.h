// ViZDoom's game variables by name (EnvPool's reward_config keys), and the 16 EnvPool reports as
// infos, in its order.
#pragma once

#include <string>
#include <vector>

namespace envhive::vizdoom {

// The GameVariable of `name` ("HEALTH", "USER2", ...), or -1.
int game_variable_id(const std::string& name);
const char* game_variable_name(int id);

struct InfoVariable {
  const char* name;
  int id;
};
// EnvPool 1.2.5's info fields: AMMO2..AMMO7, ARMOR, DAMAGECOUNT, DEATHCOUNT, FRAGCOUNT, HEALTH,
// HITCOUNT, KILLCOUNT, SELECTED_WEAPON, SELECTED_WEAPON_AMMO, USER2 (each added to the scenario's).
const std::vector<InfoVariable>& info_variables();

}  // namespace envhive::vizdoom
