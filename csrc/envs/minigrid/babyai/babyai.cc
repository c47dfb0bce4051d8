// Every BabyAI level minigrid 3.2 registers, with its kwargs.
#include <string>

#include "../minigrid.h"
#include "go_to.h"
#include "level_gen.h"
#include "open.h"
#include "other.h"
#include "pickup.h"
#include "put_next.h"
#include "unlock.h"

namespace envhive {

namespace {
using namespace minigrid;
using namespace minigrid::babyai;

// max_steps: minigrid's fixed limit for the level, or 0: a budget per episode from its instruction
// (room_size^2 * rooms per navigation the instruction needs).
template <class E>
void level(TaskRegistry& registry, const std::string& name, int64_t max_steps, const std::string& doc,
           const typename E::Params& params) {
  const std::string limit =
      max_steps > 0 ? "" : " Time limit: a budget per episode from its instruction (unless max_episode_steps is given).";
  register_task<E>(registry,
                   {.id = "BabyAI-" + name, .family = "babyai", .doc = doc + limit, .max_episode_steps = max_steps},
                   params);
}

std::string n(int v) { return std::to_string(v); }
}  // namespace

void register_babyai(TaskRegistry& r) {
  using G = GoToInRoom::Kind;
  level<GoToInRoom>(r, "GoToRedBallGrey-v0", 0, "Go to the red ball among grey objects.", {G::kRedBallGrey});
  level<GoToInRoom>(r, "GoToRedBall-v0", 0, "Go to the red ball among distractors.", {G::kRedBall});
  level<GoToInRoom>(r, "GoToRedBallNoDists-v0", 0, "Go to the red ball, alone in the room.", {G::kRedBall, 8, 0});
  level<GoToInRoom>(r, "GoToObj-v0", 0, "Go to the one object in the room.", {G::kObj});
  level<GoToInRoom>(r, "GoToObjS4-v0", 0, "Go to the one object in a small room.", {G::kObj, 4});
  level<GoToInRoom>(r, "GoToObjS6-v1", 0, "Go to the one object in a room of 6.", {G::kObj, 6});
  level<GoToInRoom>(r, "GoToLocal-v0", 0, "Go to an object in one room of distractors.", {G::kLocal, 8, 8});
  for (auto [s, d] : {std::pair{5, 2}, {6, 2}, {6, 3}, {6, 4}, {7, 4}, {7, 5}, {8, 2}, {8, 3}, {8, 4}, {8, 5}, {8, 6}, {8, 7}})
    level<GoToInRoom>(r, "GoToLocalS" + n(s) + "N" + n(d) + "-v0", 0, "Go to an object in one room of distractors.",
                      {G::kLocal, s, d});
  level<GoToMaze>(r, "GoTo-v0", 0, "Go to an object in a 3x3 maze.", {});
  level<GoToMaze>(r, "GoToOpen-v0", 0, "Go to an object in a 3x3 maze of open doors.", {.doors_open = true});
  level<GoToMaze>(r, "GoToObjMaze-v0", 0, "Go to the one object of a 3x3 maze.", {.num_dists = 1});
  level<GoToMaze>(r, "GoToObjMazeOpen-v0", 0, "Go to the one object of a 3x3 maze of open doors.",
                  {.num_dists = 1, .doors_open = true});
  level<GoToMaze>(r, "GoToObjMazeS4R2-v0", 0, "Go to the one object of a 2x2 maze of small rooms.",
                  {.shape = {4, 2, 2}, .num_dists = 1});
  for (int s : {4, 5, 6, 7})
    level<GoToMaze>(r, "GoToObjMazeS" + n(s) + "-v0", 0, "Go to the one object of a 3x3 maze.",
                    {.shape = {s, 3, 3}, .num_dists = 1});
  level<GoToImpUnlock>(r, "GoToImpUnlock-v0", 0, "Go to an object in a locked room (find its key).", {});
  level<LevelGen>(r, "GoToSeq-v0", 0, "Go to objects in a stated sequence.",
                  {.locked_room_prob = 0, .locations = false, .unblocking = false, .action_kinds = {ActionKind::kGoTo}});
  level<LevelGen>(r, "GoToSeqS5R2-v0", 0, "Go to objects in a stated sequence (2x2 maze).",
                  {.shape = {5, 2, 2}, .num_dists = 4, .locked_room_prob = 0, .locations = false, .unblocking = false,
                   .action_kinds = {ActionKind::kGoTo}});
  level<GoToInRoom>(r, "GoToRedBlueBall-v0", 0, "Go to the red or blue ball (the only one).", {G::kRedBlueBall});
  level<GoToDoorLevel>(r, "GoToDoor-v0", 0, "Go to the named door of the room.", {false});
  level<GoToDoorLevel>(r, "GoToObjDoor-v0", 0, "Go to the named object or door of the room.", {true});

  level<OpenLevel>(r, "Open-v0", 0, "Open a door of a 3x3 maze.", {});
  level<OpenRedDoor>(r, "OpenRedDoor-v0", 0, "Open the red door.", {});
  using S = OpenDoor::SelectBy;
  level<OpenDoor>(r, "OpenDoor-v0", 0, "Open the door named by color or location.", {false, S::kRandom});
  level<OpenDoor>(r, "OpenDoorDebug-v0", 0, "Open the door named by color or location (a wrong door fails).",
                  {true, S::kRandom});
  level<OpenDoor>(r, "OpenDoorColor-v0", 0, "Open the door named by color.", {false, S::kColor});
  level<OpenDoor>(r, "OpenDoorLoc-v0", 0, "Open the door named by location.", {false, S::kLoc});
  level<OpenTwoDoors>(r, "OpenTwoDoors-v0", 20 * 36, "Open two doors in order.", {});
  const int red = static_cast<int>(Color::kRed), blue = static_cast<int>(Color::kBlue);
  level<OpenTwoDoors>(r, "OpenRedBlueDoors-v0", 20 * 36, "Open the red door, then the blue one.", {red, blue});
  level<OpenTwoDoors>(r, "OpenRedBlueDoorsDebug-v0", 20 * 36,
                      "Open the red door, then the blue one (a wrong door first fails).", {red, blue, true});
  for (int d : {2, 4}) {
    level<OpenDoorsOrder>(r, "OpenDoorsOrderN" + n(d) + "-v0", 20 * 36, "Open one door, or two in order.", {d, false});
    level<OpenDoorsOrder>(r, "OpenDoorsOrderN" + n(d) + "Debug-v0", 20 * 36,
                          "Open one door, or two in order (a wrong door fails).", {d, true});
  }

  level<PickupLevel>(r, "Pickup-v0", 0, "Pick up an object in a 3x3 maze.", {false});
  level<PickupLevel>(r, "UnblockPickup-v0", 0, "Pick up an object in a 3x3 maze; some paths are blocked.", {true});
  level<LevelGen>(r, "PickupLoc-v0", 0, "Pick up an object described by its location.",
                  {.shape = {8, 1, 1}, .num_dists = 8, .locked_room_prob = 0, .unblocking = false,
                   .action_kinds = {ActionKind::kPickup}, .instr_kinds = {InstrShape::kAction}});
  level<PickupDist>(r, "PickupDist-v0", 0, "Pick up an object named by type, color or both.", {false});
  level<PickupDist>(r, "PickupDistDebug-v0", 0, "Pick up an object named by type, color or both (others fail).", {true});
  level<PickupAbove>(r, "PickupAbove-v0", 8 * 36, "Pick up the object in the room above.", {});

  level<PutNextLocal>(r, "PutNextLocal-v0", 0, "Put an object next to another in one room.", {});
  level<PutNextLocal>(r, "PutNextLocalS5N3-v0", 0, "Put an object next to another in one room.", {5, 3});
  level<PutNextLocal>(r, "PutNextLocalS6N4-v0", 0, "Put an object next to another in one room.", {6, 4});
  for (auto [s, k] : {std::pair{4, 1}, {5, 2}, {5, 1}, {6, 3}, {7, 4}})
    level<PutNext>(r, "PutNextS" + n(s) + "N" + n(k) + "-v0", 8 * s * s,
                   "Put an object of one side next to one of the other.", {s, k, false});
  for (auto [s, k] : {std::pair{5, 2}, {6, 3}, {7, 4}})
    level<PutNext>(r, "PutNextS" + n(s) + "N" + n(k) + "Carrying-v0", 8 * s * s,
                   "Put the object held next to one on the other side.", {s, k, true});

  level<UnlockLevel>(r, "Unlock-v0", 0, "Open the locked door of a 3x3 maze with its key.", {});
  level<UnlockLocal>(r, "UnlockLocal-v0", 0, "Open the room's locked door with the key in it.", {false, false});
  level<UnlockLocal>(r, "UnlockLocalDist-v0", 0, "Open the room's locked door with the key in it, among objects.",
                     {true, false});
  level<UnlockLocal>(r, "KeyInBox-v0", 0, "Open the room's locked door with the key in a box.", {false, true});
  level<UnlockPickupLevel>(r, "UnlockPickup-v0", 0, "Unlock the door and pick up the box behind it.", {false, false});
  level<UnlockPickupLevel>(r, "UnlockPickupDist-v0", 0, "Unlock the door and pick up the box behind it, among objects.",
                           {true, false});
  level<UnlockPickupLevel>(r, "BlockedUnlockPickup-v0", 16 * 36,
                           "Move the ball blocking the door, unlock it, pick up the box behind it.", {false, true});
  level<UnlockToUnlock>(r, "UnlockToUnlock-v0", 30 * 36, "Unlock a door with a key from behind another.", {});

  level<ActionObjDoor>(r, "ActionObjDoor-v0", 0, "Go to, open or pick up one of the things around.", {});
  for (int s : {5, 6, 7})
    level<FindObj>(r, "FindObjS" + n(s) + "-v0", 20 * s * s, "Find the object in a 3x3 maze and pick it up.", {s});
  level<KeyCorridorLevel>(r, "KeyCorridor-v0", 30 * 36, "Find the key, unlock the room, pick up the ball.", {6, 3});
  for (auto [s, rows] : {std::pair{3, 1}, {3, 2}, {3, 3}, {4, 3}, {5, 3}, {6, 3}})
    level<KeyCorridorLevel>(r, "KeyCorridorS" + n(s) + "R" + n(rows) + "-v0", 30 * s * s,
                            "Find the key, unlock the room, pick up the ball.", {s, rows});
  for (int s : {8, 12, 16, 20})
    level<OneRoom>(r, "OneRoomS" + n(s) + "-v0", 0, "Pick up the ball in one room.", {s});
  level<MoveTwoAcross>(r, "MoveTwoAcrossS5N2-v0", 16 * 25, "Put two objects next to two across the room, in order.", {5, 2});
  level<MoveTwoAcross>(r, "MoveTwoAcrossS8N9-v0", 16 * 64, "Put two objects next to two across the room, in order.", {8, 9});

  level<LevelGen>(r, "Synth-v0", 0, "A random instruction over a 3x3 maze.",
                  {.locations = false, .implicit_unlock = false, .instr_kinds = {InstrShape::kAction}});
  level<LevelGen>(r, "SynthS5R2-v0", 0, "A random instruction over a small maze.",
                  {.shape = {5, 2, 3}, .locations = false, .implicit_unlock = false, .instr_kinds = {InstrShape::kAction}});
  level<LevelGen>(r, "SynthLoc-v0", 0, "A random instruction, with locations, over a 3x3 maze.",
                  {.implicit_unlock = false, .instr_kinds = {InstrShape::kAction}});
  level<LevelGen>(r, "SynthSeq-v0", 0, "A random instruction sequence over a 3x3 maze.", {.implicit_unlock = false});
  level<LevelGen>(r, "MiniBossLevel-v0", 0, "The boss level on a 2x2 maze of small rooms.",
                  {.shape = {5, 2, 2}, .num_dists = 7, .locked_room_prob = 0.25});
  level<LevelGen>(r, "BossLevel-v0", 0, "Random instruction sequences over a 3x3 maze with a locked room.", {});
  level<LevelGen>(r, "BossLevelNoUnlock-v0", 0, "The boss level without locked rooms.",
                  {.locked_room_prob = 0, .implicit_unlock = false});
}

}  // namespace envhive
