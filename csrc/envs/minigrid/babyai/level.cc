#include "level.h"

#include <algorithm>
#include <cstdlib>

namespace envhive::minigrid::babyai {

Level::Level(const Config& c, const LevelSpec& spec)
    : RoomGrid(c, spec.layout(), spec.shape), fixed_max_steps_(c.integer("max_episode_steps") > 0) {}

// RoomGridLevel._gen_grid: the rooms, then the level's mission, again until both are valid.
// (minigrid prints why it generates again; that message is dropped here.)
void Level::gen_grid() {
  for (;;) {
    try {
      instrs_.clear();
      build_rooms();
      gen_mission();
      validate_instrs(instrs_.root());
    } catch (const RecursionError&) {
      continue;
    } catch (const RejectSampling&) {
      continue;
    }
    break;
  }
  mission_ = surface(instrs_.root());
}

void Level::after_reset() {
  reset_verifier(instrs_.root());
  if (!fixed_max_steps_) {
    const int64_t room = static_cast<int64_t>(shape_.room_size) * shape_.room_size;
    max_steps_ = num_navs_needed(instrs_.root()) * room * shape_.num_rows * shape_.num_cols;
  }
}

StepResult Level::act(int action) {
  StepResult r = base_step(action);
  if (action == kDrop) update_objs_poss(instrs_.root());
  const Status status = verify(instrs_.root(), action);
  if (status == Status::kSuccess) {
    r.terminated = true;
    r.reward = success_reward();
  } else if (status == Status::kFailure) {
    r.terminated = true;
    r.reward = 0;
  }
  // The episode's own budget (a fixed limit is the pool's, at the same step).
  if (!fixed_max_steps_ && step_count_ >= max_steps_) r.truncated = true;
  return r;
}

// ------------------------------------------------------------------------ object descriptions

void Level::find_matching(ObjDesc& d, bool use_location) const {
  std::vector<ObjId> tracked;
  if (use_location) {
    d.obj_set.clear();
  } else {
    tracked = d.obj_set;
  }
  d.obj_poss.clear();
  const Room& agent_room = rooms_[static_cast<size_t>(room_index_at(agent_pos_))];
  const Pos d1 = kDirVec[agent_dir_];
  const Pos d2{-d1.y, d1.x};
  for (int i = 0; i < grid_.width(); ++i)
    for (int j = 0; j < grid_.height(); ++j) {
      const ObjId id = grid_.get(i, j);
      if (id == kNone) continue;
      if (!use_location && std::find(tracked.begin(), tracked.end(), id) == tracked.end()) continue;
      const WorldObj& o = obj(id);
      if (d.type >= 0 && static_cast<int>(o.type) != d.type) continue;
      if (d.color >= 0 && static_cast<int>(o.color) != d.color) continue;
      if (use_location && d.loc != Loc::kNone) {
        if (!agent_room.pos_inside({i, j})) continue;
        const int vx = i - agent_pos_.x, vy = j - agent_pos_.y;
        const int along = vx * d1.x + vy * d1.y, across = vx * d2.x + vy * d2.y;
        const bool matches = d.loc == Loc::kLeft    ? across < 0
                             : d.loc == Loc::kRight ? across > 0
                             : d.loc == Loc::kFront ? along > 0
                                                    : along < 0;
        if (!matches) continue;
      }
      if (use_location) d.obj_set.push_back(id);
      d.obj_poss.push_back({i, j});
    }
}

std::string Level::surface(ObjDesc& d) const {
  find_matching(d);
  if (d.obj_set.empty()) throw std::logic_error("no object matching description");
  std::string s = d.type >= 0 ? std::string(name(static_cast<Type>(d.type))) : "object";
  if (d.color >= 0) s = std::string(name(static_cast<Color>(d.color))) + " " + s;
  switch (d.loc) {
    case Loc::kFront: s += " in front of you"; break;
    case Loc::kBehind: s += " behind you"; break;
    case Loc::kLeft: s += " on your left"; break;
    case Loc::kRight: s += " on your right"; break;
    case Loc::kNone: break;
  }
  return (d.obj_set.size() > 1 ? "a " : "the ") + s;
}

// ------------------------------------------------------------------------------ instructions

std::string Level::surface(int k) {
  Instr& in = instrs_[k];
  switch (in.kind) {
    case InstrKind::kOpen: return "open " + surface(in.desc);
    case InstrKind::kGoTo: return "go to " + surface(in.desc);
    case InstrKind::kPickup: return "pick up " + surface(in.desc);
    case InstrKind::kPutNext: {
      std::string s = "put " + surface(in.desc);
      return s + " next to " + surface(in.desc_fixed);
    }
    case InstrKind::kAnd: {
      std::string s = surface(in.a);
      return s + " and " + surface(in.b);
    }
    case InstrKind::kBefore: {
      std::string s = surface(in.a);
      return s + ", then " + surface(in.b);
    }
    case InstrKind::kAfter: {
      std::string s = surface(in.a);
      return s + " after you " + surface(in.b);
    }
  }
  return {};
}

void Level::reset_verifier(int k) {
  Instr& in = instrs_[k];
  switch (in.kind) {
    case InstrKind::kPutNext:
      in.pre_carrying = kNone;
      find_matching(in.desc);
      find_matching(in.desc_fixed);
      break;
    case InstrKind::kPickup:
      in.pre_carrying = kNone;
      [[fallthrough]];
    case InstrKind::kOpen:
    case InstrKind::kGoTo:
      find_matching(in.desc);
      break;
    default:
      reset_verifier(in.a);
      reset_verifier(in.b);
      in.a_done = in.b_done = Status::kUnset;
  }
}

bool Level::objs_next(const Instr& in) const {
  for (ObjId a : in.desc.obj_set) {
    const Pos pa = obj(a).cur_pos;
    for (const Pos& pb : in.desc_fixed.obj_poss)
      if (std::abs(pa.x - pb.x) + std::abs(pa.y - pb.y) == 1) return true;
  }
  return false;
}

// verify(action), with minigrid's BABYAI_DONE_ACTIONS unset (the default: no `done` protocol).
Status Level::verify(int k, int action) {
  Instr& in = instrs_[k];
  switch (in.kind) {
    case InstrKind::kOpen: {
      if (action != kToggle) return Status::kContinue;
      const ObjId front = grid_.get(front_pos());
      for (ObjId door : in.desc.obj_set)
        if (front != kNone && front == door && obj(door).is_open) return Status::kSuccess;
      if (in.strict && front != kNone && obj(front).type == Type::kDoor) return Status::kFailure;
      return Status::kContinue;
    }
    case InstrKind::kGoTo: {
      const Pos f = front_pos();
      for (const Pos& p : in.desc.obj_poss)
        if (p == f) return Status::kSuccess;
      return Status::kContinue;
    }
    case InstrKind::kPickup: {
      const ObjId pre = in.pre_carrying;
      in.pre_carrying = carrying_;
      if (action != kPickup) return Status::kContinue;
      for (ObjId o : in.desc.obj_set)
        if (pre == kNone && carrying_ == o) return Status::kSuccess;
      if (in.strict && carrying_ != kNone) return Status::kFailure;
      in.pre_carrying = carrying_;
      return Status::kContinue;
    }
    case InstrKind::kPutNext: {
      const ObjId pre = in.pre_carrying;
      in.pre_carrying = carrying_;
      if (in.strict && action == kPickup && carrying_ != kNone) return Status::kFailure;
      if (action != kDrop) return Status::kContinue;
      for (ObjId a : in.desc.obj_set) {
        if (pre != a) continue;
        const Pos pa = obj(a).cur_pos;
        for (const Pos& pb : in.desc_fixed.obj_poss)
          if (std::abs(pa.x - pb.x) + std::abs(pa.y - pb.y) == 1) return Status::kSuccess;
      }
      return Status::kContinue;
    }
    case InstrKind::kBefore: {
      if (in.a_done == Status::kSuccess) {
        in.b_done = verify(in.b, action);
        if (in.b_done == Status::kFailure) return Status::kFailure;
        if (in.b_done == Status::kSuccess) return Status::kSuccess;
      } else {
        in.a_done = verify(in.a, action);
        if (in.a_done == Status::kFailure) return Status::kFailure;
        if (in.a_done == Status::kSuccess) return verify(k, action);
        if (in.strict && verify(in.b, action) == Status::kSuccess) return Status::kFailure;
      }
      return Status::kContinue;
    }
    case InstrKind::kAfter: {
      if (in.b_done == Status::kSuccess) {
        in.a_done = verify(in.a, action);
        if (in.a_done == Status::kSuccess) return Status::kSuccess;
        if (in.a_done == Status::kFailure) return Status::kFailure;
      } else {
        in.b_done = verify(in.b, action);
        if (in.b_done == Status::kFailure) return Status::kFailure;
        if (in.b_done == Status::kSuccess) return verify(k, action);
        if (in.strict && verify(in.a, action) == Status::kSuccess) return Status::kFailure;
      }
      return Status::kContinue;
    }
    case InstrKind::kAnd: {
      if (in.a_done != Status::kSuccess) in.a_done = verify(in.a, action);
      if (in.b_done != Status::kSuccess) in.b_done = verify(in.b, action);
      if (in.a_done == Status::kSuccess && in.b_done == Status::kSuccess) return Status::kSuccess;
      return Status::kContinue;
    }
  }
  return Status::kContinue;
}

void Level::update_objs_poss(int k) {
  Instr& in = instrs_[k];
  if (!in.is_action()) {
    update_objs_poss(in.a);
    update_objs_poss(in.b);
    return;
  }
  find_matching(in.desc, false);
  if (in.kind == InstrKind::kPutNext) find_matching(in.desc_fixed, false);
}

int Level::num_navs_needed(int k) const {
  const Instr& in = instrs_[k];
  if (in.kind == InstrKind::kPutNext) return 2;
  if (in.is_action()) return 1;
  return num_navs_needed(in.a) + num_navs_needed(in.b);
}

void Level::validate_instrs(int k) {
  std::vector<Color> locked_door_colors;
  if (unblocking()) {
    for (int i = 0; i < shape_.num_cols; ++i)
      for (int j = 0; j < shape_.num_rows; ++j)
        for (ObjId door : room(i, j).doors)
          if (door != kNone && obj(door).is_locked) locked_door_colors.push_back(obj(door).color);
  }
  Instr& in = instrs_[k];
  if (in.kind == InstrKind::kPutNext) {
    reset_verifier(k);
    for (ObjId a : in.desc.obj_set)
      if (std::find(in.desc_fixed.obj_set.begin(), in.desc_fixed.obj_set.end(), a) != in.desc_fixed.obj_set.end())
        throw RejectSampling("there are objects that match both lhs and rhs of PutNext");
    if (objs_next(in)) throw RejectSampling("objs already next to each other");
    if (in.desc.obj_set.size() == 1 && in.desc_fixed.obj_set.size() == 1 && in.desc.obj_set[0] == in.desc_fixed.obj_set[0])
      throw RejectSampling("cannot move an object next to itself");
  }
  if (in.is_action()) {
    if (!unblocking()) return;
    auto refuse_key = [&](const ObjDesc& d) {
      if (d.type == static_cast<int>(Type::kKey) && d.color >= 0 &&
          std::find(locked_door_colors.begin(), locked_door_colors.end(), static_cast<Color>(d.color)) !=
              locked_door_colors.end())
        throw RejectSampling("cannot do anything with/to a key that can be used to open a door");
    };
    refuse_key(in.desc);
    if (in.kind == InstrKind::kPutNext) refuse_key(in.desc_fixed);
    return;
  }
  validate_instrs(in.a);
  validate_instrs(in.b);
}

// -------------------------------------------------------------------------------- helpers

Level::LockedRoom Level::add_locked_room_and_key() {
  const int id = rand_int(0, shape_.num_cols);
  const int jd = rand_int(0, shape_.num_rows);
  const ObjId door = add_door(id, jd, {.locked = 1}).first;
  const int ik = rand_int(0, shape_.num_cols);
  const int jk = rand_int(0, shape_.num_rows);
  add_object(ik, jk, static_cast<int>(ObjKind::kKey), static_cast<int>(obj(door).color));
  return {door, jd * shape_.num_cols + id, {id, jd}};
}

void Level::place_agent_outside(int r) {
  do {
    place_agent_in_room();
  } while (room_index_at(agent_pos_) == r);
}

void Level::open_all_doors() {
  for (int i = 0; i < shape_.num_cols; ++i)
    for (int j = 0; j < shape_.num_rows; ++j)
      for (ObjId door : room(i, j).doors)
        if (door != kNone) obj(door).is_open = true;
}

bool Level::check_objs_reachable(bool raise_exc) const {
  std::vector<uint8_t> reachable(static_cast<size_t>(grid_.width()) * static_cast<size_t>(grid_.height()), 0);
  std::vector<Pos> stack{agent_pos_};
  while (!stack.empty()) {
    const Pos p = stack.back();
    stack.pop_back();
    if (!grid_.inside(p)) continue;
    uint8_t& seen = reachable[static_cast<size_t>(p.y * grid_.width() + p.x)];
    if (seen) continue;
    seen = 1;
    const WorldObj* c = cell(p);
    if (c != nullptr && c->type != Type::kDoor) continue;
    stack.push_back({p.x + 1, p.y});
    stack.push_back({p.x - 1, p.y});
    stack.push_back({p.x, p.y + 1});
    stack.push_back({p.x, p.y - 1});
  }
  for (int i = 0; i < grid_.width(); ++i)
    for (int j = 0; j < grid_.height(); ++j) {
      const WorldObj* c = cell({i, j});
      if (c == nullptr || c->type == Type::kWall) continue;
      if (!reachable[static_cast<size_t>(j * grid_.width() + i)]) {
        if (!raise_exc) return false;
        throw RejectSampling("unreachable object at (" + std::to_string(i) + ", " + std::to_string(j) + ")");
      }
    }
  return true;
}

}  // namespace envhive::minigrid::babyai
