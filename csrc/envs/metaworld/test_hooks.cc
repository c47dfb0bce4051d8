// The Meta-World family's Python functions (envhive_add_family's BINDINGS), for its tests: a
// benchmark split's task vectors for a seed (against Meta-World's Benchmark.train_tasks /
// test_tasks), scipy's quaternion of a rotation matrix, the task names and benchmark classes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "benchmarks.h"
#include "quat.h"
#include "rand_vec.h"

namespace nb = nanobind;

namespace envhive {

void bind_metaworld_extras(nb::module_& m) {
  // The task vectors of a benchmark's split for a seed, class by class: benchmark "MT10".."ML45",
  // or a task name for MT1 / ML1.
  m.def(
      "_metaworld_benchmark_rand_vecs",
      [](const std::string& name, bool test, uint32_t seed) {
        metaworld::RandVecPlan plan;
        if (name.rfind("MT", 0) == 0 || name.rfind("ML", 0) == 0) {
          const metaworld::Benchmark& b = metaworld::benchmark(name);
          plan.classes = test ? b.test : b.train;
        } else {
          plan.classes = {name};
        }
        return metaworld::benchmark_rand_vecs(plan, seed);
      },
      nb::arg("name"), nb::arg("test"), nb::arg("seed"));
  // scipy's Rotation.from_matrix(m).as_quat() for row-major 3 x 3 matrices.
  m.def("_metaworld_quat_from_matrix", [](const std::vector<double>& mats) {
    std::vector<double> out(mats.size() / 9 * 4);
    for (size_t i = 0; i + 9 <= mats.size(); i += 9) metaworld::quat_from_matrix(&mats[i], &out[i / 9 * 4]);
    return out;
  });
  // The task names in ALL_V3_ENVIRONMENTS's order, and a benchmark's classes.
  m.def("_metaworld_task_names", [] { return metaworld::all_task_names(); });
  m.def("_metaworld_benchmark_classes", [](const std::string& name, bool test) {
    const metaworld::Benchmark& b = metaworld::benchmark(name);
    return test ? b.test : b.train;
  });
}

}  // namespace envhive
