// robotics_loop_bench TASK_ID [SECONDS] [SEED] assets_dir=ASSETS_DIR [maze_dir=MAZE_DIR]: the
// single-thread limit (core/loop_bench.h). ASSETS_DIR: gymnasium_robotics/envs/assets. A maze task's
// model is built in Python (the family's resolver), so the harness writes the resolver's files for
// it first (envhive.families.robotics.loop_bench_data): MAZE_DIR holds maze.xml and maze.rows.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "../../core/loop_bench.h"
#include "maze.h"
#include "robotics.h"

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string() + " (maze_dir=: the maze's files)");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void register_from_folders(envhive::TaskRegistry& registry, const envhive::FamilyData& data) {
  envhive::robotics::register_tasks(registry, data);
  // No resolver here: the one maze the harness wrote, for whichever maze task is run.
  envhive::robotics::set_maze_source([&data](const std::string&, const std::string&) {
    const std::filesystem::path dir = data.value("maze_dir");
    return envhive::robotics::maze_files({{"maze.xml", read_file(dir / "maze.xml")},
                                          {"maze.rows", read_file(dir / "maze.rows")}});
  });
}

}  // namespace

int main(int argc, char** argv) { return envhive::run_loop_bench(argc, argv, register_from_folders); }
