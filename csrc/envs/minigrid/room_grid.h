// minigrid.core.roomgrid.RoomGrid: a num_rows x num_cols array of square rooms sharing walls,
// with the door positions drawn when the grid is built, and the helpers levels build with
// (add_door, add_object, remove_wall, connect_all, add_distractors, place_agent in a room).
#pragma once

#include <array>
#include <vector>

#include "minigrid_env.h"

namespace envhive::minigrid {

enum class ObjKind : uint8_t { kKey, kBall, kBox };
inline constexpr std::array<ObjKind, 3> kObjKinds = {ObjKind::kKey, ObjKind::kBall, ObjKind::kBox};
inline Type type_of(ObjKind k) { return k == ObjKind::kKey ? Type::kKey : k == ObjKind::kBall ? Type::kBall : Type::kBox; }

// The arguments of RoomGrid.add_door beyond the room; -1 is minigrid's None (drawn at random).
struct DoorSpec {
  int door_idx = -1;
  int color = -1;   // a Color
  int locked = -1;  // 0 / 1
};

struct Room {
  Pos top, size;
  // Per wall (right, down, left, up): the door (kNone: none), whether the wall was removed (an
  // opening: minigrid's `doors[k] = True`), the door position and the neighbouring room (-1: none).
  std::array<ObjId, 4> doors{kNone, kNone, kNone, kNone};
  std::array<bool, 4> open_wall{false, false, false, false};
  std::array<bool, 4> has_door_pos{false, false, false, false};
  std::array<Pos, 4> door_pos{};
  std::array<int, 4> neighbors{-1, -1, -1, -1};
  bool locked = false;
  std::vector<ObjId> objs;

  // `if room.doors[k]:` -- a door or an opening.
  bool connected(int k) const { return doors[static_cast<size_t>(k)] != kNone || open_wall[static_cast<size_t>(k)]; }
  bool pos_inside(Pos p) const { return p.x >= top.x && p.y >= top.y && p.x < top.x + size.x && p.y < top.y + size.y; }
};

class RoomGrid : public MiniGridEnv {
 public:
  struct Shape {
    int room_size, num_rows, num_cols;
    int width() const { return (room_size - 1) * num_cols + 1; }
    int height() const { return (room_size - 1) * num_rows + 1; }
  };

 protected:
  RoomGrid(const Config& c, const Layout& layout, Shape shape) : MiniGridEnv(c, layout, false), shape_(shape) {}

  // RoomGrid._gen_grid: the rooms, their walls and door positions; the agent in the middle room.
  void build_rooms();

  Room& room(int i, int j) { return rooms_[index(i, j)]; }
  const Room& room(int i, int j) const { return rooms_[index(i, j)]; }
  int room_index_at(Pos p) const;  // room_from_pos
  Room& room_at(Pos p) { return rooms_[static_cast<size_t>(room_index_at(p))]; }

  // add_door(i, j, door_idx=None, color=None, locked=None)
  std::pair<ObjId, Pos> add_door(int i, int j, DoorSpec spec = {});
  void remove_wall(int i, int j, int wall_idx);
  // add_object(i, j, kind=None, color=None): -1 draws it.
  std::pair<ObjId, Pos> add_object(int i, int j, int kind = -1, int color = -1);
  std::pair<ObjId, Pos> place_in_room(int i, int j, ObjId id);
  // RoomGrid.place_agent(i=None, j=None, rand_dir=True): -1 draws the room.
  Pos place_agent_in_room(int i = -1, int j = -1, bool rand_dir = true);
  std::vector<ObjId> connect_all(const std::vector<Color>& door_colors = {kColorNames.begin(), kColorNames.end()},
                                 int max_itrs = 5000);
  std::vector<ObjId> add_distractors(int i = -1, int j = -1, int num_distractors = 10, bool all_unique = true);

  Shape shape_;
  std::vector<Room> rooms_;  // [j * num_cols + i]

 private:
  size_t index(int i, int j) const;
};

}  // namespace envhive::minigrid
