// envhive._metaworld: Meta-World v3, linked against the libmujoco of the `mujoco` package. The models
// are the installed metaworld package's XML; where they are, and how numpy's ddot rounds, are asked
// of envhive.families.metaworld (with the GIL) when the first env is made.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "../envs/metaworld/benchmarks.h"
#include "../envs/metaworld/metaworld.h"
#include "../envs/metaworld/model_store.h"
#include "../envs/metaworld/quat.h"
#include "../envs/metaworld/rand_vec.h"
#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive {

namespace {
metaworld::Runtime runtime_from_python() {
  nb::gil_scoped_acquire gil;
  nb::tuple r = nb::cast<nb::tuple>(nb::module_::import_("envhive.families.metaworld").attr("runtime")());
  return {nb::cast<std::string>(r[0]), nb::cast<bool>(r[1])};
}
}  // namespace

void register_module_tasks(TaskRegistry& registry) { register_metaworld(registry, &runtime_from_python); }

void bind_module_extras(nanobind::module_& m) {
  // The task vectors of a benchmark's split for a seed, class by class (tests compare them with
  // Meta-World's Benchmark.train_tasks / test_tasks): benchmark "MT10".."ML45", or a task name for
  // MT1 / ML1.
  m.def(
      "_benchmark_rand_vecs",
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
  m.def("_quat_from_matrix", [](const std::vector<double>& mats) {
    std::vector<double> out(mats.size() / 9 * 4);
    for (size_t i = 0; i + 9 <= mats.size(); i += 9) metaworld::quat_from_matrix(&mats[i], &out[i / 9 * 4]);
    return out;
  });
  // The task names in ALL_V3_ENVIRONMENTS's order, and the benchmark classes.
  m.def("_task_names", [] { return metaworld::all_task_names(); });
  m.def("_benchmark_classes", [](const std::string& name, bool test) {
    const metaworld::Benchmark& b = metaworld::benchmark(name);
    return test ? b.test : b.train;
  });
}

}  // namespace envhive
