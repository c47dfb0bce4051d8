// ViZDoom's C++ client (DoomGame) as the vizdoom wheel's extension library exports it, reached
// through dlsym: the library is loaded with dlopen(RTLD_NOW | RTLD_LOCAL) by the first env, so this
// module has no link-time or load-time dependency on ViZDoom (it builds, imports and lists its tasks
// without vizdoom installed) and the client's symbols stay out of the process's global scope.
//
// Each entry point is the member function of DoomGame (ViZDoom 1.3.2's headers give the types and
// the object layouts: DoomGame's size, GameState) called as a free function whose first parameter is
// the object: the Itanium C++ ABI's convention for non-virtual members (a class returned by value
// comes back through the hidden pointer the compiler passes before `this`, as for a free function).
#pragma once

#include <ViZDoom.h>

#include <string>
#include <vector>

namespace envhive::vizdoom {

namespace vz = ::vizdoom;

// One DoomGame of the client.
class DoomGame {
 public:
  DoomGame();  // loads the client on first use (doom_files.h); throws std::runtime_error
  ~DoomGame();
  DoomGame(const DoomGame&) = delete;
  DoomGame& operator=(const DoomGame&) = delete;

  bool init();
  void close();
  void newEpisode(const std::string& recording);
  void setAction(const std::vector<double>& action);
  void advanceAction(unsigned int tics, bool update_state);
  double makeAction(const std::vector<double>& action, unsigned int tics);
  bool isEpisodeFinished();
  bool isPlayerDead();
  vz::GameStatePtr getState();
  bool loadConfig(const std::string& path);
  void setViZDoomPath(const std::string& path);
  void setDoomGamePath(const std::string& path);
  void setDoomScenarioPath(const std::string& path);
  void setDoomMap(const std::string& map);
  void setWindowVisible(bool visible);
  void addGameArgs(const std::string& args);
  void setMode(vz::Mode mode);
  void setEpisodeTimeout(unsigned int tics);
  void setSeed(unsigned int seed);
  int getScreenChannels();
  int getScreenWidth();
  int getScreenHeight();
  void addAvailableGameVariable(vz::GameVariable variable);
  std::vector<vz::GameVariable> getAvailableGameVariables();
  std::vector<vz::Button> getAvailableButtons();

 private:
  vz::DoomGame* self_;
};

}  // namespace envhive::vizdoom
