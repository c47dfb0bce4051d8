#include "frozen_lake.h"

#include <stdexcept>

namespace envhive::toy_text {

namespace {
constexpr const char* kMap4x4 = "SFFF\nFHFH\nFFFH\nHFFG";
constexpr const char* kMap8x8 =
    "SFFFFFFF\nFFFFFFFF\nFFFHFFFF\nFFFFFHFF\nFFFHFFFF\nFHHFFFHF\nFHFFHFHF\nFFFHFFFG";
}  // namespace

Lake parse_lake(const std::string& desc, const std::string& map_name) {
  std::string text = desc;
  if (text.empty()) {
    if (map_name == "4x4") {
      text = kMap4x4;
    } else if (map_name == "8x8") {
      text = kMap8x8;
    } else {
      throw std::invalid_argument("map_name must be '4x4' or '8x8' (or give desc), got '" + map_name + "'");
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
  draw_frozen_lake(rgb, lake_.nrow, lake_.ncol, lake_.tiles, s_, sprites(slot));
}

}  // namespace envhive::toy_text
