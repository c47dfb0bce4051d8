#include "room_grid.h"

#include <algorithm>

namespace envhive::minigrid {

size_t RoomGrid::index(int i, int j) const {
  if (i < 0 || j < 0 || i >= shape_.num_cols || j >= shape_.num_rows)
    throw std::out_of_range("room (" + std::to_string(i) + ", " + std::to_string(j) + ") outside the room grid");
  return static_cast<size_t>(j) * static_cast<size_t>(shape_.num_cols) + static_cast<size_t>(i);
}

int RoomGrid::room_index_at(Pos p) const {
  if (p.x < 0 || p.y < 0) throw std::out_of_range("room_from_pos: negative position");
  return static_cast<int>(index(p.x / (shape_.room_size - 1), p.y / (shape_.room_size - 1)));
}

void RoomGrid::build_rooms() {
  const int rs = shape_.room_size, rows = shape_.num_rows, cols = shape_.num_cols;
  new_grid(width_, height_);
  rooms_.assign(static_cast<size_t>(rows * cols), Room{});
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) {
      Room& r = room(i, j);
      r.top = {i * (rs - 1), j * (rs - 1)};
      r.size = {rs, rs};
      grid_.wall_rect(r.top.x, r.top.y, rs, rs, wall());
    }
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) {
      Room& r = room(i, j);
      const int x_l = r.top.x + 1, y_l = r.top.y + 1;
      const int x_m = r.top.x + r.size.x - 1, y_m = r.top.y + r.size.y - 1;
      if (i < cols - 1) {
        r.neighbors[0] = static_cast<int>(index(i + 1, j));
        r.door_pos[0] = {x_m, rand_int(y_l, y_m)};
        r.has_door_pos[0] = true;
      }
      if (j < rows - 1) {
        r.neighbors[1] = static_cast<int>(index(i, j + 1));
        r.door_pos[1] = {rand_int(x_l, x_m), y_m};
        r.has_door_pos[1] = true;
      }
      if (i > 0) {
        r.neighbors[2] = static_cast<int>(index(i - 1, j));
        r.door_pos[2] = room(i - 1, j).door_pos[0];
        r.has_door_pos[2] = true;
      }
      if (j > 0) {
        r.neighbors[3] = static_cast<int>(index(i, j - 1));
        r.door_pos[3] = room(i, j - 1).door_pos[1];
        r.has_door_pos[3] = true;
      }
    }
  agent_pos_ = {(cols / 2) * (rs - 1) + rs / 2, (rows / 2) * (rs - 1) + rs / 2};
  agent_dir_ = 0;
}

std::pair<ObjId, Pos> RoomGrid::add_door(int i, int j, DoorSpec spec) {
  Room* r = &room(i, j);
  int k = spec.door_idx;
  if (k < 0) {
    for (;;) {
      k = rand_int(0, 4);
      const size_t side = static_cast<size_t>(k);
      if (r->neighbors[side] >= 0 && r->doors[side] == kNone && !r->open_wall[side]) break;
    }
  }
  const Color color = spec.color >= 0 ? static_cast<Color>(spec.color) : rand_color();
  const bool locked = spec.locked >= 0 ? spec.locked != 0 : rand_bool();
  const size_t side = static_cast<size_t>(k);
  if (r->doors[side] != kNone || r->open_wall[side]) throw std::logic_error("door already exists");
  const int n = r->neighbors[side];
  if (n < 0 || !r->has_door_pos[side]) throw std::logic_error("add_door: no room beyond that wall");
  r->locked = locked;
  const ObjId door = new_door(color, false, locked);
  const Pos pos = r->door_pos[side];
  grid_.set(pos, door);
  obj(door).cur_pos = pos;  // minigrid sets no init_pos for doors
  r->doors[side] = door;
  rooms_[static_cast<size_t>(n)].doors[static_cast<size_t>((k + 2) % 4)] = door;
  return {door, pos};
}

void RoomGrid::remove_wall(int i, int j, int wall_idx) {
  Room& r = room(i, j);
  if (r.connected(wall_idx)) throw std::logic_error("door exists on this wall");
  if (r.neighbors[static_cast<size_t>(wall_idx)] < 0) throw std::logic_error("invalid wall");
  const int tx = r.top.x, ty = r.top.y, w = r.size.x, h = r.size.y;
  switch (wall_idx) {
    case 0: for (int k = 1; k < h - 1; ++k) grid_.set(tx + w - 1, ty + k, kNone); break;
    case 1: for (int k = 1; k < w - 1; ++k) grid_.set(tx + k, ty + h - 1, kNone); break;
    case 2: for (int k = 1; k < h - 1; ++k) grid_.set(tx, ty + k, kNone); break;
    default: for (int k = 1; k < w - 1; ++k) grid_.set(tx + k, ty, kNone); break;
  }
  const size_t side = static_cast<size_t>(wall_idx);
  r.open_wall[side] = true;
  rooms_[static_cast<size_t>(r.neighbors[side])].open_wall[(side + 2) % 4] = true;
}

std::pair<ObjId, Pos> RoomGrid::place_in_room(int i, int j, ObjId id) {
  Room& r = room(i, j);
  const Pos agent = agent_pos_;
  auto next_to_agent = [agent](Pos p) { return std::abs(agent.x - p.x) + std::abs(agent.y - p.y) < 2; };
  const Pos pos = place_obj(id, r.top, r.size, next_to_agent, 1000);
  room(i, j).objs.push_back(id);
  return {id, pos};
}

std::pair<ObjId, Pos> RoomGrid::add_object(int i, int j, int kind, int color) {
  const ObjKind k = kind >= 0 ? static_cast<ObjKind>(kind) : rand_elem(kObjKinds);
  const Color c = color >= 0 ? static_cast<Color>(color) : rand_color();
  return place_in_room(i, j, add(type_of(k), c));
}

Pos RoomGrid::place_agent_in_room(int i, int j, bool rand_dir) {
  if (i < 0) i = rand_int(0, shape_.num_cols);
  if (j < 0) j = rand_int(0, shape_.num_rows);
  const Room& r = room(i, j);
  for (;;) {
    place_agent(r.top, r.size, rand_dir, 1000);
    const WorldObj* front = cell(front_pos());
    if (front == nullptr || front->type == Type::kWall) break;
  }
  return agent_pos_;
}

std::vector<ObjId> RoomGrid::connect_all(const std::vector<Color>& door_colors, int max_itrs) {
  const int start = room_index_at(agent_pos_);
  const size_t total = rooms_.size();
  std::vector<ObjId> added;
  std::vector<uint8_t> reach(total);
  std::vector<int> stack;
  auto reach_count = [&]() {
    std::fill(reach.begin(), reach.end(), 0);
    size_t count = 0;
    stack.assign(1, start);
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      if (reach[static_cast<size_t>(k)]) continue;
      reach[static_cast<size_t>(k)] = 1;
      ++count;
      const Room& r = rooms_[static_cast<size_t>(k)];
      for (int d = 0; d < 4; ++d)
        if (r.connected(d)) stack.push_back(r.neighbors[static_cast<size_t>(d)]);
    }
    return count;
  };
  int num_itrs = 0;
  for (;;) {
    if (num_itrs > max_itrs) throw RecursionError("connect_all failed");
    ++num_itrs;
    if (reach_count() == total) break;
    const int i = rand_int(0, shape_.num_cols);
    const int j = rand_int(0, shape_.num_rows);
    const int k = rand_int(0, 4);
    const Room& r = room(i, j);
    if (!r.has_door_pos[static_cast<size_t>(k)] || r.connected(k)) continue;
    const Room& neighbor = rooms_[static_cast<size_t>(r.neighbors[static_cast<size_t>(k)])];
    if (r.locked || neighbor.locked) continue;
    const Color color = rand_elem(door_colors);
    added.push_back(add_door(i, j, {.door_idx = k, .color = static_cast<int>(color), .locked = 0}).first);
  }
  return added;
}

std::vector<ObjId> RoomGrid::add_distractors(int i, int j, int num_distractors, bool all_unique) {
  std::vector<std::pair<Type, Color>> existing;
  for (const Room& r : rooms_)
    for (ObjId id : r.objs) existing.emplace_back(obj(id).type, obj(id).color);
  std::vector<ObjId> dists;
  while (static_cast<int>(dists.size()) < num_distractors) {
    const Color color = rand_elem(kColorNames);
    const ObjKind kind = rand_elem(kObjKinds);
    const std::pair<Type, Color> key{type_of(kind), color};
    if (all_unique && std::find(existing.begin(), existing.end(), key) != existing.end()) continue;
    const int room_i = i >= 0 ? i : rand_int(0, shape_.num_cols);
    const int room_j = j >= 0 ? j : rand_int(0, shape_.num_rows);
    dists.push_back(add_object(room_i, room_j, static_cast<int>(kind), static_cast<int>(color)).first);
    existing.push_back(key);
  }
  return dists;
}

}  // namespace envhive::minigrid
