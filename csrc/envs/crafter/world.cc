#include "world.h"

#include <algorithm>
#include <stdexcept>

namespace envhive::crafter {

World::World(int width, int height)
    : width_(width),
      height_(height),
      chunks_x_((width + kChunkSize - 1) / kChunkSize),
      chunks_y_((height + kChunkSize - 1) / kChunkSize),
      materials_(static_cast<size_t>(width) * height),
      object_map_(static_cast<size_t>(width) * height),
      chunk_lookup_(static_cast<size_t>(chunks_x_) * chunks_y_) {}

void World::reset(uint32_t seed) {
  random.seed(seed);
  daylight = 0.0;
  std::fill(materials_.begin(), materials_.end(), kNoMaterial);
  std::fill(object_map_.begin(), object_map_.end(), 0);
  objects_.assign(1, Object{});
  objects_[0].removed = true;
  std::fill(chunk_lookup_.begin(), chunk_lookup_.end(), -1);
  chunks_.clear();
}

int World::count_in(const Chunk& c, Material m) const {
  int n = 0;
  for (int x = c.xmin; x < c.xmax; ++x)
    for (int y = c.ymin; y < c.ymax; ++y) n += materials_[static_cast<size_t>(x) * height_ + y] == m;
  return n;
}

size_t World::chunk_of(Pos p) {
  const int cx = p.x / kChunkSize, cy = p.y / kChunkSize;
  int32_t& slot = chunk_lookup_[static_cast<size_t>(cx) * chunks_y_ + cy];
  if (slot < 0) {
    slot = static_cast<int32_t>(chunks_.size());
    const int xmin = cx * kChunkSize, ymin = cy * kChunkSize;
    chunks_.push_back({xmin, std::min(xmin + kChunkSize, width_), ymin, std::min(ymin + kChunkSize, height_), {}});
  }
  return static_cast<size_t>(slot);
}

void World::leave_chunk(size_t chunk, uint32_t id) {
  auto& members = chunks_[chunk].members;
  members.erase(std::find(members.begin(), members.end(), id));
}

uint32_t World::add(const Object& obj) {
  if (!inside(obj.pos) || object_map_[index(obj.pos)] != 0)
    throw std::logic_error("crafter: an object was added on an occupied or outside cell");
  const auto id = static_cast<uint32_t>(objects_.size());
  objects_.push_back(obj);
  objects_.back().removed = false;
  object_map_[index(obj.pos)] = id;
  chunks_[chunk_of(obj.pos)].members.push_back(id);
  return id;
}

void World::remove(uint32_t id) {
  Object& obj = objects_[id];
  if (obj.removed) return;
  object_map_[index(obj.pos)] = 0;
  leave_chunk(chunk_of(obj.pos), id);
  obj.removed = true;
}

void World::move(uint32_t id, Pos to) {
  Object& obj = objects_[id];
  if (obj.removed) return;
  if (object_map_[index(to)] != 0) throw std::logic_error("crafter: an object moved onto an occupied cell");
  object_map_[index(to)] = id;
  object_map_[index(obj.pos)] = 0;
  const size_t from = chunk_of(obj.pos);
  if (obj.pos.x / kChunkSize != to.x / kChunkSize || obj.pos.y / kChunkSize != to.y / kChunkSize) {
    leave_chunk(from, id);
    chunks_[chunk_of(to)].members.push_back(id);  // the new chunk is made here, if it is new
  }
  obj.pos = to;
}

void World::live_objects(std::vector<uint32_t>& out) const {
  out.clear();
  for (uint32_t i = 1; i < objects_.size(); ++i)
    if (!objects_[i].removed) out.push_back(i);
}

}  // namespace envhive::crafter
