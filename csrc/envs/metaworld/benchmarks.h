// Meta-World's benchmarks (metaworld.env_dict): which task classes each holds, in its order.
#pragma once

#include <string>
#include <vector>

namespace envhive::metaworld {

struct Benchmark {
  std::string name;                 // "MT10", "ML45"
  std::vector<std::string> train;   // train classes
  std::vector<std::string> test;    // test classes (empty for MT)
};

// MT10, MT25, MT50, ML10, ML25, ML45; throws std::invalid_argument for another name.
const Benchmark& benchmark(const std::string& name);
// ALL_V3_ENVIRONMENTS's names, in order.
const std::vector<std::string>& all_task_names();

}  // namespace envhive::metaworld
