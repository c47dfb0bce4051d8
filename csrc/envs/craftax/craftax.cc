#include "craftax.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "classic_env.h"
#include "classic_textures.h"

namespace envhive::craftax {

namespace {

// The files of a folder as texture files (craftax_loop_bench: written by the descriptor's
// loop_bench_data), each named by its file name with "__" for "/".
TextureFiles read_folder(const std::string& dir) {
  TextureFiles files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::string name = entry.path().filename().string();
    for (size_t p = name.find("__"); p != std::string::npos; p = name.find("__", p + 1)) name.replace(p, 2, "/");
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    files.emplace_back(name, bytes.str());
  }
  return files;
}

}  // namespace

void register_tasks(TaskRegistry& registry, const FamilyData& data) {
  if (data.has("textures_dir"))
    set_texture_files([dir = data.value("textures_dir")] { return read_folder(dir); });
  else
    set_texture_files([&data] { return data.resolve("textures"); });
  register_classic_tasks(registry);
}

}  // namespace envhive::craftax
