#include "doom_client.h"

#include <dlfcn.h>

#include <mutex>
#include <new>
#include <stdexcept>

#include "doom_files.h"

namespace envhive::vizdoom {

namespace {

using G = vz::DoomGame*;
using Str = std::string;

// The client's entry points, resolved once (mangled names of ViZDoom 1.3.2's DoomGame members).
struct Client {
  void (*construct)(G);
  void (*destruct)(G);
  bool (*init)(G);
  void (*close)(G);
  void (*new_episode)(G, Str);
  void (*set_action)(G, const std::vector<double>&);
  void (*advance_action)(G, unsigned int, bool);
  double (*make_action)(G, const std::vector<double>&, unsigned int);
  bool (*is_episode_finished)(G);
  bool (*is_player_dead)(G);
  vz::GameStatePtr (*get_state)(G);
  bool (*load_config)(G, Str);
  void (*set_vizdoom_path)(G, Str);
  void (*set_doom_game_path)(G, Str);
  void (*set_doom_scenario_path)(G, Str);
  void (*set_doom_map)(G, Str);
  void (*set_window_visible)(G, bool);
  void (*add_game_args)(G, Str);
  void (*set_mode)(G, vz::Mode);
  void (*set_episode_timeout)(G, unsigned int);
  void (*set_seed)(G, unsigned int);
  int (*get_screen_channels)(G);
  int (*get_screen_width)(G);
  int (*get_screen_height)(G);
  void (*add_available_game_variable)(G, vz::GameVariable);
  std::vector<vz::GameVariable> (*get_available_game_variables)(G);
  std::vector<vz::Button> (*get_available_buttons)(G);
};

#define ENVHIVE_STR "NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
#define ENVHIVE_M(name) "_ZN7vizdoom8DoomGame" name

template <class F>
void bind(void* lib, F& slot, const char* symbol, const std::string& path) {
  dlerror();
  void* p = dlsym(lib, symbol);
  if (!p) throw std::runtime_error("vizdoom: " + path + " has no " + symbol + ": not the vizdoom 1.3.2 wheel's client");
  slot = reinterpret_cast<F>(p);
}

Client load(const std::string& path) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw std::runtime_error("vizdoom: cannot load ViZDoom's client " + path + ": " + (why ? why : "dlopen failed"));
  }
  Client c{};
  bind(lib, c.construct, ENVHIVE_M("C1Ev"), path);
  bind(lib, c.destruct, ENVHIVE_M("D1Ev"), path);
  bind(lib, c.init, ENVHIVE_M("4initEv"), path);
  bind(lib, c.close, ENVHIVE_M("5closeEv"), path);
  bind(lib, c.new_episode, ENVHIVE_M("10newEpisodeE" ENVHIVE_STR), path);
  bind(lib, c.set_action, ENVHIVE_M("9setActionERKSt6vectorIdSaIdEE"), path);
  bind(lib, c.advance_action, ENVHIVE_M("13advanceActionEjb"), path);
  bind(lib, c.make_action, ENVHIVE_M("10makeActionERKSt6vectorIdSaIdEEj"), path);
  bind(lib, c.is_episode_finished, ENVHIVE_M("17isEpisodeFinishedEv"), path);
  bind(lib, c.is_player_dead, ENVHIVE_M("12isPlayerDeadEv"), path);
  bind(lib, c.get_state, ENVHIVE_M("8getStateEv"), path);
  bind(lib, c.load_config, ENVHIVE_M("10loadConfigE" ENVHIVE_STR), path);
  bind(lib, c.set_vizdoom_path, ENVHIVE_M("14setViZDoomPathE" ENVHIVE_STR), path);
  bind(lib, c.set_doom_game_path, ENVHIVE_M("15setDoomGamePathE" ENVHIVE_STR), path);
  bind(lib, c.set_doom_scenario_path, ENVHIVE_M("19setDoomScenarioPathE" ENVHIVE_STR), path);
  bind(lib, c.set_doom_map, ENVHIVE_M("10setDoomMapE" ENVHIVE_STR), path);
  bind(lib, c.set_window_visible, ENVHIVE_M("16setWindowVisibleEb"), path);
  bind(lib, c.add_game_args, ENVHIVE_M("11addGameArgsE" ENVHIVE_STR), path);
  bind(lib, c.set_mode, ENVHIVE_M("7setModeENS_4ModeE"), path);
  bind(lib, c.set_episode_timeout, ENVHIVE_M("17setEpisodeTimeoutEj"), path);
  bind(lib, c.set_seed, ENVHIVE_M("7setSeedEj"), path);
  bind(lib, c.get_screen_channels, ENVHIVE_M("17getScreenChannelsEv"), path);
  bind(lib, c.get_screen_width, ENVHIVE_M("14getScreenWidthEv"), path);
  bind(lib, c.get_screen_height, ENVHIVE_M("15getScreenHeightEv"), path);
  bind(lib, c.add_available_game_variable, ENVHIVE_M("24addAvailableGameVariableENS_12GameVariableE"), path);
  bind(lib, c.get_available_game_variables, ENVHIVE_M("25getAvailableGameVariablesEv"), path);
  bind(lib, c.get_available_buttons, ENVHIVE_M("19getAvailableButtonsEv"), path);
  return c;  // the library stays loaded for the process
}
#undef ENVHIVE_M
#undef ENVHIVE_STR

const Client& client() {
  static std::mutex mu;
  static Client* loaded = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (!loaded) loaded = new Client(load(doom_files().client));
  return *loaded;
}

}  // namespace

DoomGame::DoomGame() {
  const Client& c = client();
  void* memory = ::operator new(sizeof(vz::DoomGame));
  try {
    c.construct(static_cast<G>(memory));
  } catch (...) {
    ::operator delete(memory);
    throw;
  }
  self_ = static_cast<G>(memory);
}

DoomGame::~DoomGame() {
  client().destruct(self_);
  ::operator delete(self_);
}

bool DoomGame::init() { return client().init(self_); }
void DoomGame::close() { client().close(self_); }
void DoomGame::newEpisode(const std::string& recording) { client().new_episode(self_, recording); }
void DoomGame::setAction(const std::vector<double>& action) { client().set_action(self_, action); }
void DoomGame::advanceAction(unsigned int tics, bool update) { client().advance_action(self_, tics, update); }
double DoomGame::makeAction(const std::vector<double>& action, unsigned int tics) {
  return client().make_action(self_, action, tics);
}
bool DoomGame::isEpisodeFinished() { return client().is_episode_finished(self_); }
bool DoomGame::isPlayerDead() { return client().is_player_dead(self_); }
vz::GameStatePtr DoomGame::getState() { return client().get_state(self_); }
bool DoomGame::loadConfig(const std::string& path) { return client().load_config(self_, path); }
void DoomGame::setViZDoomPath(const std::string& path) { client().set_vizdoom_path(self_, path); }
void DoomGame::setDoomGamePath(const std::string& path) { client().set_doom_game_path(self_, path); }
void DoomGame::setDoomScenarioPath(const std::string& path) { client().set_doom_scenario_path(self_, path); }
void DoomGame::setDoomMap(const std::string& map) { client().set_doom_map(self_, map); }
void DoomGame::setWindowVisible(bool visible) { client().set_window_visible(self_, visible); }
void DoomGame::addGameArgs(const std::string& args) { client().add_game_args(self_, args); }
void DoomGame::setMode(vz::Mode mode) { client().set_mode(self_, mode); }
void DoomGame::setEpisodeTimeout(unsigned int tics) { client().set_episode_timeout(self_, tics); }
void DoomGame::setSeed(unsigned int seed) { client().set_seed(self_, seed); }
int DoomGame::getScreenChannels() { return client().get_screen_channels(self_); }
int DoomGame::getScreenWidth() { return client().get_screen_width(self_); }
int DoomGame::getScreenHeight() { return client().get_screen_height(self_); }
void DoomGame::addAvailableGameVariable(vz::GameVariable v) { client().add_available_game_variable(self_, v); }
std::vector<vz::GameVariable> DoomGame::getAvailableGameVariables() { return client().get_available_game_variables(self_); }
std::vector<vz::Button> DoomGame::getAvailableButtons() { return client().get_available_buttons(self_); }

}  // namespace envhive::vizdoom
