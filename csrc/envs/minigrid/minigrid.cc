#include "minigrid.h"

#include <string>

#include "crossing.h"
#include "dist_shift.h"
#include "doorkey.h"
#include "dynamic_obstacles.h"
#include "empty.h"
#include "fetch.h"
#include "four_rooms.h"
#include "go_to_door.h"
#include "go_to_object.h"
#include "key_corridor.h"
#include "lava_gap.h"
#include "locked_room.h"
#include "memory.h"
#include "multi_room.h"
#include "obstructed_maze.h"
#include "playground.h"
#include "put_near.h"
#include "red_blue_doors.h"
#include "tile_sampler.h"
#include "unlock.h"
#include "unlock_pickup.h"

namespace envhive {

namespace {
using namespace minigrid;

const std::string kFamily = "minigrid";

// One id; max_steps is minigrid's default max_steps for it (its truncation and reward scale).
template <class E>
void add(TaskRegistry& registry, const std::string& id, int64_t max_steps, const std::string& doc,
         const typename E::Params& params) {
  register_task<E>(
      registry, {.id = id, .family = kFamily, .doc = doc, .max_episode_steps = max_steps, .task_time_limit = true},
      params);
}

std::string id(const std::string& name) { return "MiniGrid-" + name + "-v0"; }
std::string sized(const std::string& name, int size) {
  return id(name + "-" + std::to_string(size) + "x" + std::to_string(size));
}

void register_suite(TaskRegistry& r) {
  for (int s : {5, 6, 8, 16}) add<EmptyEnv>(r, sized("Empty", s), 4 * s * s, "Reach the goal of an empty room.", {s, false});
  for (int s : {5, 6})
    add<EmptyEnv>(r, sized("Empty-Random", s), 4 * s * s, "Reach the goal of an empty room from a random start.", {s, true});
  for (int s : {5, 6, 8, 16})
    add<DoorKeyEnv>(r, sized("DoorKey", s), 10 * s * s, "Pick up the key, unlock the door, reach the goal behind it.", {s});
  add<FourRoomsEnv>(r, id("FourRooms"), 100, "Reach the goal through four rooms joined by gaps.", {});
  add<MultiRoomEnv>(r, id("MultiRoom-N2-S4"), 2 * 20, "Cross a chain of 2 rooms (at most 4 cells) to the goal.", {2, 2, 4});
  add<MultiRoomEnv>(r, id("MultiRoom-N4-S5"), 6 * 20,
                    "Cross a chain of 6 rooms (at most 5 cells; minigrid's legacy id) to the goal.", {6, 6, 5});
  add<MultiRoomEnv>(r, "MiniGrid-MultiRoom-N4-S5-v1", 4 * 20, "Cross a chain of 4 rooms (at most 5 cells) to the goal.",
                    {4, 4, 5});
  add<MultiRoomEnv>(r, id("MultiRoom-N6"), 6 * 20, "Cross a chain of 6 rooms to the goal.", {6, 6, 10});
  for (auto [s, rows] : {std::pair{3, 1}, {3, 2}, {3, 3}, {4, 3}, {5, 3}, {6, 3}})
    add<KeyCorridorEnv>(r, id("KeyCorridorS" + std::to_string(s) + "R" + std::to_string(rows)), 30 * s * s,
                        "Find the key, unlock the room with the ball and pick the ball up.", {s, rows});
  for (int s : {5, 6, 7})
    add<LavaGapEnv>(r, id("LavaGapS" + std::to_string(s)), 4 * s * s, "Cross a wall of lava through its gap to the goal.", {s});
  for (auto [s, n] : {std::pair{9, 1}, {9, 2}, {9, 3}, {11, 5}}) {
    const std::string suffix = "S" + std::to_string(s) + "N" + std::to_string(n);
    add<CrossingEnv>(r, id("LavaCrossing" + suffix), 4 * s * s, "Cross rivers of lava through their gaps to the goal.",
                     {s, n, true});
    add<CrossingEnv>(r, id("SimpleCrossing" + suffix), 4 * s * s, "Cross walls through their gaps to the goal.", {s, n, false});
  }
  add<DistShiftEnv>(r, id("DistShift1"), 4 * 9 * 7, "Reach the goal between two strips of lava.", {2});
  add<DistShiftEnv>(r, id("DistShift2"), 4 * 9 * 7, "Reach the goal between two strips of lava (the second moved).", {5});
  for (auto [s, n] : {std::pair{5, 2}, {6, 3}, {8, 4}, {16, 8}})
    add<DynamicObstaclesEnv>(r, sized("Dynamic-Obstacles", s), 4 * s * s, "Reach the goal among moving balls.", {s, n, false});
  for (auto [s, n] : {std::pair{5, 2}, {6, 3}})
    add<DynamicObstaclesEnv>(r, sized("Dynamic-Obstacles-Random", s), 4 * s * s,
                             "Reach the goal among moving balls from a random start.", {s, n, true});
  for (auto [s, n] : {std::pair{5, 2}, {6, 2}, {8, 3}})
    add<FetchEnv>(r, id("Fetch-" + std::to_string(s) + "x" + std::to_string(s) + "-N" + std::to_string(n)), 5 * s * s,
                  "Pick up the named object.", {s, n});
  for (int s : {5, 6, 8})
    add<GoToDoorEnv>(r, sized("GoToDoor", s), 4 * s * s, "Stand next to the named door and say done.", {s});
  for (int s : {6, 8})
    add<GoToObjectEnv>(r, id("GoToObject-" + std::to_string(s) + "x" + std::to_string(s) + "-N2"), 5 * s * s,
                       "Stand next to the named object and say done.", {s, 2});
  add<LockedRoomEnv>(r, id("LockedRoom"), 10 * 19, "Fetch the key from one room to open the locked room of the goal.", {19});
  for (auto [name, s, random] : {std::tuple{"MemoryS17Random", 17, true}, {"MemoryS13Random", 13, true},
                                 {"MemoryS13", 13, false}, {"MemoryS11", 11, false}, {"MemoryS9", 9, false},
                                 {"MemoryS7", 7, false}})
    add<MemoryEnv>(r, id(name), 5 * s * s, "Remember the object at the start and end by its match.", {s, random});
  using V = ObstructedMazeEnv::Variant;
  const std::string maze_doc = "Open locked (boxed keys) and blocked doors to pick up the blue ball.";
  add<ObstructedMazeEnv>(r, id("ObstructedMaze-1Dl"), 4 * 2 * 36, maze_doc, {V::k1Dlhb, false, false, {0, 0}, 1});
  add<ObstructedMazeEnv>(r, id("ObstructedMaze-1Dlh"), 4 * 2 * 36, maze_doc, {V::k1Dlhb, true, false, {0, 0}, 1});
  add<ObstructedMazeEnv>(r, id("ObstructedMaze-1Dlhb"), 4 * 2 * 36, maze_doc, {V::k1Dlhb, true, true, {0, 0}, 1});
  for (auto [v, version] : {std::pair{V::kFull, "-v0"}, {V::kFullV1, "-v1"}}) {
    const std::string base = "MiniGrid-ObstructedMaze-";
    if (v == V::kFull) {
      add<ObstructedMazeEnv>(r, base + "2Dl" + version, 4 * 4 * 36, maze_doc, {v, false, false, {2, 1}, 1});
      add<ObstructedMazeEnv>(r, base + "2Dlh" + version, 4 * 4 * 36, maze_doc, {v, true, false, {2, 1}, 1});
    }
    add<ObstructedMazeEnv>(r, base + "2Dlhb" + version, 4 * 4 * 36, maze_doc, {v, true, true, {2, 1}, 1});
    add<ObstructedMazeEnv>(r, base + "1Q" + version, 4 * 5 * 36, maze_doc, {v, true, true, {1, 1}, 1});
    add<ObstructedMazeEnv>(r, base + "2Q" + version, 4 * 11 * 36, maze_doc, {v, true, true, {2, 1}, 2});
    add<ObstructedMazeEnv>(r, base + "Full" + version, 4 * 25 * 36, maze_doc, {v, true, true, {1, 1}, 4});
  }
  add<PlaygroundEnv>(r, id("Playground"), 100, "Nine rooms with doors and objects; no mission (a sandbox).", {});
  add<PutNearEnv>(r, id("PutNear-6x6-N2"), 5 * 6, "Put the named object next to the other named one.", {6, 2});
  add<PutNearEnv>(r, id("PutNear-8x8-N3"), 5 * 8, "Put the named object next to the other named one.", {8, 3});
  for (int s : {6, 8})
    add<RedBlueDoorsEnv>(r, sized("RedBlueDoors", s), 20 * s * s, "Open the red door, then the blue door.", {s});
  add<UnlockEnv>(r, id("Unlock"), 8 * 36, "Open the locked door with the key in the room.", {});
  add<UnlockPickupEnv>(r, id("UnlockPickup"), 8 * 36, "Unlock the door and pick up the box behind it.", {false});
  add<UnlockPickupEnv>(r, id("BlockedUnlockPickup"), 16 * 36,
                       "Move the ball blocking the door, unlock it and pick up the box behind it.", {true});
}
}  // namespace

void register_minigrid(TaskRegistry& registry) {
  register_suite(registry);
  register_task<TileSamplerEnv>(registry,
                                {.id = "MiniGridTiles-v0",
                                 .family = kFamily,
                                 .doc = "Engine test env: every object minigrid draws, in every color and state.",
                                 .max_episode_steps = 100,
                                 .hidden = true},
                                TileSamplerEnv::Params{});
}

void register_minigrid_families(TaskRegistry& registry) {
  register_minigrid(registry);
  register_babyai(registry);
}

}  // namespace envhive
