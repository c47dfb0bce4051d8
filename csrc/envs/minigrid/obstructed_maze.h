// MiniGrid-ObstructedMaze-*: minigrid.envs.ObstructedMaze_1Dlhb, ObstructedMaze_Full (-v0) and
// ObstructedMaze_Full_V1 (-v1). Locked doors whose keys may hide in boxes, doorways blocked by
// balls; pick up the blue ball in a corner room.
#pragma once

#include <vector>

#include "room_grid.h"

namespace envhive::minigrid {

class ObstructedMazeEnv final : public RoomGrid {
 public:
  enum class Variant : uint8_t { k1Dlhb, kFull, kFullV1 };
  struct Params {
    Variant variant;
    bool key_in_box, blocked;
    Pos agent_room;    // Full variants
    int num_quarters;  // Full variants
    Shape shape() const { return variant == Variant::k1Dlhb ? Shape{6, 1, 2} : Shape{6, 3, 3}; }
    Layout layout() const { return {.width = shape().width(), .height = shape().height(), .mission_length = 21}; }
  };
  ObstructedMazeEnv(const Config& c, int, const Params& p) : RoomGrid(c, p.layout(), p.shape()), p_(p) {}

 private:
  // COLOR_NAMES[0], [1], [2]: the ball to find, the blocking balls, the boxes.
  static constexpr Color kBallColor = kColorNames[0], kBlockingColor = kColorNames[1], kBoxColor = kColorNames[2];

  void gen_grid() override {
    build_rooms();
    door_colors_ = rand_subset(std::vector<Color>(kColorNames.begin(), kColorNames.end()), kColorNames.size());
    mission_ = "pick up the blue ball";
    if (p_.variant == Variant::k1Dlhb) {
      maze_door(0, 0, 0, door_colors_[0], true, p_.key_in_box, p_.blocked);
      target_ = add_object(1, 0, static_cast<int>(ObjKind::kBall), static_cast<int>(kBallColor)).first;
      place_agent_in_room(0, 0);
      return;
    }
    static constexpr Pos kSideRooms[4] = {{2, 1}, {1, 2}, {0, 1}, {1, 0}};
    static constexpr Pos kCorners[4] = {{2, 0}, {2, 2}, {0, 2}, {0, 0}};
    const int n_colors = static_cast<int>(door_colors_.size());
    for (int i = 0; i < p_.num_quarters; ++i) {
      const Pos side = kSideRooms[i];
      maze_door(1, 1, i, door_colors_[static_cast<size_t>(i)], false, false, false);
      if (p_.variant == Variant::kFull) {
        for (int k : {-1, 1})
          maze_door(side.x, side.y, (i + k + 4) % 4, door_colors_[static_cast<size_t>((i + k + n_colors) % n_colors)],
                    true, p_.key_in_box, p_.blocked);
      } else {  // v1: both locked doors first, then both keys
        for (int k : {-1, 1})
          maze_door(side.x, side.y, (i + k + 4) % 4, door_colors_[static_cast<size_t>((i + k + n_colors) % n_colors)],
                    true, false, p_.blocked, /*with_key=*/false);
        for (int k : {-1, 1})
          place_key(side.x, side.y, door_colors_[static_cast<size_t>((i + k + n_colors) % n_colors)], p_.key_in_box);
      }
    }
    const Pos ball_room = kCorners[rand_int(0, p_.num_quarters)];
    target_ = add_object(ball_room.x, ball_room.y, static_cast<int>(ObjKind::kBall), static_cast<int>(kBallColor)).first;
    place_agent_in_room(p_.agent_room.x, p_.agent_room.y);
  }

  // ObstructedMazeEnv.add_door: a door, a ball blocking it from this room's side, and (locked)
  // its key in this room, in a box when key_in_box.
  void maze_door(int i, int j, int door_idx, Color color, bool locked, bool key_in_box, bool blocked,
                 bool with_key = true) {
    const Pos pos = add_door(i, j, {.door_idx = door_idx, .color = static_cast<int>(color), .locked = locked ? 1 : 0}).second;
    if (blocked) grid_.set(pos - kDirVec[door_idx], add(Type::kBall, kBlockingColor));
    if (locked && with_key) place_key(i, j, color, key_in_box);
  }
  void place_key(int i, int j, Color color, bool key_in_box) {
    ObjId key = add(Type::kKey, color);
    if (key_in_box) {
      const ObjId box = add(Type::kBox, kBoxColor);
      obj(box).contains = key;
      key = box;
    }
    place_in_room(i, j, key);
  }

  StepResult act(int action) override { return pickup_step(action, target_); }

  Params p_;
  std::vector<Color> door_colors_;
  ObjId target_ = kNone;
};

}  // namespace envhive::minigrid
