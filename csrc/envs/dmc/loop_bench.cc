// dmc_loop_bench TASK_ID [SECONDS] [SEED] models_dir=MODELS_DIR: the single-thread limit
// (core/loop_bench.h) of a DeepMind Control Suite task. dm_control builds its tasks' XML in Python,
// so the harness writes each task's files first (envhive.families.dmc.write_model_files):
// MODELS_DIR/<domain>-<task>/ holds model.xml, asset<i> files and assets.txt (`<i> <name>` a line:
// the name the XML uses).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "../../core/loop_bench.h"
#include "dmc.h"

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void register_from_folder(envhive::TaskRegistry& registry, const envhive::FamilyData& data) {
  envhive::register_dmc(registry, [models_dir = data.value("models_dir")](const std::string& domain, const std::string& task,
                                               const envhive::dmc::ModelKwargs& kwargs) {
    if (!kwargs.empty()) throw std::invalid_argument("dmc_loop_bench runs the tasks' default models");
    const std::filesystem::path folder = std::filesystem::path(models_dir) / (domain + "-" + task);
    envhive::dmc::ModelFiles files;
    files.xml = read_file(folder / "model.xml");
    std::istringstream manifest(read_file(folder / "assets.txt"));
    std::string index, name;
    while (manifest >> index && std::getline(manifest >> std::ws, name))
      files.assets.emplace_back(name, read_file(folder / ("asset" + index)));
    return files;
  });
}

}  // namespace

int main(int argc, char** argv) { return envhive::run_loop_bench(argc, argv, register_from_folder); }
