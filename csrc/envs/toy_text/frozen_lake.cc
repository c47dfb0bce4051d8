#include "frozen_lake.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace envhive::toy_text {

namespace {
constexpr const char* kMap4x4 = "SFFF\nFHFH\nFFFH\nHFFG";
constexpr const char* kMap8x8 =
    "SFFFFFFF\nFFFFFFFF\nFFFHFFFF\nFFFFFHFF\nFFFHFFFF\nFHHFFFHF\nFHFFHFHF\nFFFHFFFG";

constexpr int kRandomMapSize = 8;  // generate_random_map()'s default size

// is_valid(board, size): a path of non-hole tiles (4-neighbours) from the top-left tile to a G.
bool reaches_goal(const std::string& tiles, int size) {
  std::vector<char> seen(tiles.size(), 0);
  std::vector<int> frontier{0};
  while (!frontier.empty()) {
    const int cell = frontier.back();
    frontier.pop_back();
    if (seen[static_cast<size_t>(cell)]) continue;
    seen[static_cast<size_t>(cell)] = 1;
    const int r = cell / size, c = cell % size;
    const int moves[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    for (const auto& m : moves) {
      const int nr = r + m[0], nc = c + m[1];
      if (nr < 0 || nr >= size || nc < 0 || nc >= size) continue;
      const char t = tiles[static_cast<size_t>(nr * size + nc)];
      if (t == 'G') return true;
      if (t != 'H') frontier.push_back(nr * size + nc);
    }
  }
  return false;
}
}  // namespace

bool is_random_map(const std::string& desc, const std::string& map_name) { return desc.empty() && map_name.empty(); }

std::string random_lake_tiles(int size, double p, Pcg64& rng) {
  p = std::min(1.0, p);
  // Generator.choice with probabilities: cdf = cumsum([p, 1 - p]) / its last value; each of the
  // size * size random() draws (row by row) picks the first index whose cdf exceeds it.
  const double total = p + (1.0 - p);
  const double frozen_below = p / total;
  std::string tiles(static_cast<size_t>(size) * static_cast<size_t>(size), 'F');
  for (;;) {
    for (char& t : tiles) t = rng.next_double() < frozen_below ? 'F' : 'H';
    tiles.front() = 'S';
    tiles.back() = 'G';
    if (reaches_goal(tiles, size)) return tiles;
  }
}

Lake parse_lake(const std::string& desc, const std::string& map_name) {
  if (is_random_map(desc, map_name)) return Lake{kRandomMapSize, kRandomMapSize, std::string()};
  std::string text = desc;
  if (text.empty()) {
    if (map_name == "4x4") {
      text = kMap4x4;
    } else if (map_name == "8x8") {
      text = kMap8x8;
    } else {
      throw std::invalid_argument("map_name must be '4x4', '8x8' or None (a random 8x8 map), or give desc; got '" +
                                  map_name + "'");
    }
  }
  Lake lake;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string row = text.substr(start, end - start);
    if (lake.nrow == 0) lake.ncol = static_cast<int>(row.size());
    if (row.empty() || static_cast<int>(row.size()) != lake.ncol)
      throw std::invalid_argument("desc: row " + std::to_string(lake.nrow) + " has " + std::to_string(row.size()) +
                                  " tiles, row 0 has " + std::to_string(lake.ncol) +
                                  " (every row needs the same, at least one)");
    for (char t : row)
      if (t != 'S' && t != 'F' && t != 'H' && t != 'G')
        throw std::invalid_argument(std::string("desc: unknown tile '") + t + "' in row " + std::to_string(lake.nrow) +
                                    " (tiles are S start, F frozen, H hole, G goal)");
    lake.tiles += row;
    ++lake.nrow;
    start = end + 1;
  }
  if (lake.tiles.find('S') == std::string::npos)
    throw std::invalid_argument("desc: the map has no start tile 'S'");
  return lake;
}

void FrozenLakeEnv::render(uint8_t* rgb, RenderSlot& slot) {
  draw_frozen_lake(rgb, lake_.nrow, lake_.ncol, lake_.tiles, s_, sprites(slot), surface_.empty() ? nullptr : surface_.data());
  const FrozenLakeSize size = frozen_lake_size(lake_.nrow, lake_.ncol);
  surface_.assign(rgb, rgb + static_cast<size_t>(size.width) * static_cast<size_t>(size.height) * 3);
}

}  // namespace envhive::toy_text
