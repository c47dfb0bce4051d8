// robotics_loop_bench DATA_DIR TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h).
// DATA_DIR holds `assets` (gymnasium_robotics/envs/assets, or a link to it) and, for a maze task, the
// maze's model as Python builds it (maze.xml, maze.rows: one map row a line); the bench harness
// writes it with envhive.families.robotics.write_loop_bench_data.
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "../../core/loop_bench.h"
#include "maze.h"
#include "robotics.h"

namespace {

void register_from_data(envhive::TaskRegistry& registry, const std::string& data) {
  envhive::robotics::set_maze_source([data](const std::string&, const std::string&) {
    envhive::robotics::MazeFiles files;
    std::ifstream xml(data + "/maze.xml"), rows(data + "/maze.rows");
    if (!xml || !rows) throw std::invalid_argument("no maze.xml / maze.rows in " + data);
    std::stringstream text;
    text << xml.rdbuf();
    files.xml = text.str();
    for (std::string row; std::getline(rows, row);)
      if (!row.empty()) files.rows.push_back(row);
    return files;
  });
  envhive::robotics::register_tasks(registry, data + "/assets");
}

}  // namespace

int main(int argc, char** argv) { return envhive::run_loop_bench(argc, argv, register_from_data); }
