// minigrid's world: object types and colors with their observation codes (minigrid.core.constants),
// the objects themselves (minigrid.core.world_object) and positions. Objects live in an env's
// arena and are referred to by id: minigrid compares objects by identity (`carrying is obj`), and
// an id is that identity.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace envhive::minigrid {

// OBJECT_TO_IDX
enum class Type : uint8_t { kUnseen = 0, kEmpty, kWall, kFloor, kDoor, kKey, kBall, kBox, kGoal, kLava, kAgent };
// COLOR_TO_IDX
enum class Color : uint8_t { kRed = 0, kGreen, kBlue, kPurple, kYellow, kGrey };
inline constexpr int kNumColors = 6;
inline constexpr int kNumTypes = 11;

// COLOR_NAMES: the colors sorted by name, the order every random color choice indexes.
inline constexpr std::array<Color, kNumColors> kColorNames = {Color::kBlue,   Color::kGreen, Color::kGrey,
                                                              Color::kPurple, Color::kRed,   Color::kYellow};

inline constexpr std::array<std::string_view, kNumColors> kColorText = {"red",    "green", "blue",
                                                                        "purple", "yellow", "grey"};
inline constexpr std::array<std::string_view, kNumTypes> kTypeText = {
    "unseen", "empty", "wall", "floor", "door", "key", "ball", "box", "goal", "lava", "agent"};

inline std::string_view name(Color c) { return kColorText[static_cast<size_t>(c)]; }
inline std::string_view name(Type t) { return kTypeText[static_cast<size_t>(t)]; }

// COLORS (RGB)
inline constexpr uint8_t kColorRgb[kNumColors][3] = {{255, 0, 0},   {0, 255, 0},     {0, 0, 255},
                                                      {112, 39, 195}, {255, 255, 0}, {100, 100, 100}};

struct Pos {
  int x = 0, y = 0;
  friend bool operator==(const Pos&, const Pos&) = default;
  Pos operator+(const Pos& o) const { return {x + o.x, y + o.y}; }
  Pos operator-(const Pos& o) const { return {x - o.x, y - o.y}; }
};

// DIR_TO_VEC: right, down, left, up.
inline constexpr Pos kDirVec[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};

using ObjId = int16_t;
inline constexpr ObjId kNone = -1;

// The state slot of an object's observation code (STATE_TO_IDX): doors only.
enum class DoorState : uint8_t { kOpen = 0, kClosed = 1, kLocked = 2 };

struct WorldObj {
  Type type = Type::kEmpty;
  Color color = Color::kGrey;
  bool is_open = false, is_locked = false;  // doors
  ObjId contains = kNone;                   // boxes
  // init_pos / cur_pos as minigrid keeps them: set when placed (place_obj, put_obj; doors),
  // (-1, -1) while carried, the drop position after. BabyAI's put-next verifier reads cur_pos, of
  // objects that were carried (never of one minigrid left at None).
  Pos init_pos{-1, -1}, cur_pos{-1, -1};

  bool can_overlap() const {
    return type == Type::kGoal || type == Type::kFloor || type == Type::kLava || (type == Type::kDoor && is_open);
  }
  bool can_pickup() const { return type == Type::kKey || type == Type::kBall || type == Type::kBox; }
  bool see_behind() const { return type != Type::kWall && !(type == Type::kDoor && !is_open); }
  uint8_t state() const {
    if (type != Type::kDoor) return 0;
    return static_cast<uint8_t>(is_open ? DoorState::kOpen : is_locked ? DoorState::kLocked : DoorState::kClosed);
  }
  // WorldObj.encode(): (type, color, state).
  void encode(uint8_t* out) const {
    out[0] = static_cast<uint8_t>(type);
    out[1] = static_cast<uint8_t>(color);
    out[2] = state();
  }
};

}  // namespace envhive::minigrid
