#include "game_variables.h"

#include <ViZDoom.h>

#include <utility>

namespace envhive::vizdoom {

namespace {

namespace vz = ::vizdoom;
#define ENVHIVE_GV(x) {#x, vz::x}

const std::vector<std::pair<std::string, int>>& names() {
  static const std::vector<std::pair<std::string, int>> table = [] {
    std::vector<std::pair<std::string, int>> t = {
        ENVHIVE_GV(KILLCOUNT), ENVHIVE_GV(ITEMCOUNT), ENVHIVE_GV(SECRETCOUNT), ENVHIVE_GV(FRAGCOUNT),
        ENVHIVE_GV(DEATHCOUNT), ENVHIVE_GV(HITCOUNT), ENVHIVE_GV(HITS_TAKEN), ENVHIVE_GV(DAMAGECOUNT),
        ENVHIVE_GV(DAMAGE_TAKEN), ENVHIVE_GV(HEALTH), ENVHIVE_GV(ARMOR), ENVHIVE_GV(DEAD), ENVHIVE_GV(ON_GROUND),
        ENVHIVE_GV(ATTACK_READY), ENVHIVE_GV(ALTATTACK_READY), ENVHIVE_GV(SELECTED_WEAPON),
        ENVHIVE_GV(SELECTED_WEAPON_AMMO), ENVHIVE_GV(POSITION_X), ENVHIVE_GV(POSITION_Y), ENVHIVE_GV(POSITION_Z),
        ENVHIVE_GV(ANGLE), ENVHIVE_GV(PITCH), ENVHIVE_GV(ROLL), ENVHIVE_GV(VIEW_HEIGHT), ENVHIVE_GV(VELOCITY_X),
        ENVHIVE_GV(VELOCITY_Y), ENVHIVE_GV(VELOCITY_Z), ENVHIVE_GV(CAMERA_POSITION_X),
        ENVHIVE_GV(CAMERA_POSITION_Y), ENVHIVE_GV(CAMERA_POSITION_Z), ENVHIVE_GV(CAMERA_ANGLE),
        ENVHIVE_GV(CAMERA_PITCH), ENVHIVE_GV(CAMERA_ROLL), ENVHIVE_GV(CAMERA_FOV), ENVHIVE_GV(PLAYER_NUMBER),
        ENVHIVE_GV(PLAYER_COUNT)};
    for (int k = 0; k <= 9; ++k) {
      t.emplace_back("AMMO" + std::to_string(k), vz::AMMO0 + k);
      t.emplace_back("WEAPON" + std::to_string(k), vz::WEAPON0 + k);
    }
    for (int k = 1; k <= 16; ++k) t.emplace_back("PLAYER" + std::to_string(k) + "_FRAGCOUNT", vz::PLAYER1_FRAGCOUNT + k - 1);
    for (int k = 1; k <= 60; ++k) t.emplace_back("USER" + std::to_string(k), vz::USER1 + k - 1);
    return t;
  }();
  return table;
}
#undef ENVHIVE_GV

}  // namespace

int game_variable_id(const std::string& name) {
  for (const auto& [n, id] : names())
    if (n == name) return id;
  return -1;
}

const char* game_variable_name(int id) {
  for (const auto& [n, i] : names())
    if (i == id) return n.c_str();
  return "?";
}

const std::vector<InfoVariable>& info_variables() {
  static const std::vector<InfoVariable> infos = {
      {"AMMO2", vz::AMMO2}, {"AMMO3", vz::AMMO3}, {"AMMO4", vz::AMMO4}, {"AMMO5", vz::AMMO5},
      {"AMMO6", vz::AMMO6}, {"AMMO7", vz::AMMO7}, {"ARMOR", vz::ARMOR}, {"DAMAGECOUNT", vz::DAMAGECOUNT},
      {"DEATHCOUNT", vz::DEATHCOUNT}, {"FRAGCOUNT", vz::FRAGCOUNT}, {"HEALTH", vz::HEALTH},
      {"HITCOUNT", vz::HITCOUNT}, {"KILLCOUNT", vz::KILLCOUNT}, {"SELECTED_WEAPON", vz::SELECTED_WEAPON},
      {"SELECTED_WEAPON_AMMO", vz::SELECTED_WEAPON_AMMO}, {"USER2", vz::USER2}};
  return infos;
}

}  // namespace envhive::vizdoom
