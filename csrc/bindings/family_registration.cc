#include "family_registration.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include <map>
#include <stdexcept>
#include <string>

#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive::bindings {

namespace {

bool g_registered = false;

// The module's families' data: lives as long as the module (tasks may keep references into it).
ModuleData& module_data() {
  static ModuleData* data = new ModuleData();  // never destroyed: resolvers hold Python objects
  return *data;
}

// A family's Python resolver as FamilyData::Resolver: called with the GIL, its result checked.
FamilyData::Resolver wrap_resolver(const std::string& family, nb::handle fn) {
  if (fn.is_none()) return {};
  if (!PyCallable_Check(fn.ptr())) throw nb::type_error(("the resolver of " + family + " is not callable").c_str());
  auto* held = new nb::object(nb::borrow(fn));  // one per family, kept for the process (see module_data)
  return [held, family](const std::string& key, const FamilyData::Args& args) {
    nb::gil_scoped_acquire gil;
    nb::dict kwargs;
    for (const auto& [name, value] : args) kwargs[name.c_str()] = value;
    nb::object result = (*held)(key, kwargs);
    FamilyData::Files files;
    for (nb::handle item : result) {
      nb::tuple pair = nb::borrow<nb::tuple>(item);
      if (pair.size() != 2 || !nb::isinstance<nb::bytes>(pair[1]))
        throw std::runtime_error("the resolver of " + family + " must return (name, bytes) pairs");
      nb::bytes contents = nb::borrow<nb::bytes>(pair[1]);
      files.emplace_back(nb::cast<std::string>(pair[0]), std::string(contents.c_str(), contents.size()));
    }
    return files;
  };
}

}  // namespace

bool module_registered() { return g_registered; }

void bind_family_registration(nb::module_& m) {
  nb::list declarations;
  for (const DataDeclaration& d : module_data_declarations())
    declarations.append(nb::make_tuple(d.family, d.key, d.package, d.path));
  m.attr("DATA_DECLARATIONS") = declarations;
  nb::list families;
  for (const std::string& family : module_families()) families.append(family);
  m.attr("FAMILIES") = families;
  m.def(
      "register_families",
      [](std::map<std::string, std::map<std::string, std::string>> values, nb::dict resolvers) {
        if (g_registered) return;  // once per process: the first load's data stays
        for (const std::string& family : module_families()) {
          nb::object resolver = resolvers.contains(family.c_str()) ? resolvers[family.c_str()] : nb::none();
          module_data().set(FamilyData(family, values[family], wrap_resolver(family, resolver)));
        }
        try {
          register_module_tasks(task_registry(), module_data());
        } catch (const std::exception& e) {
          task_registry().clear();
          throw nb::import_error(e.what());
        }
        g_registered = true;
      },
      nb::arg("values"), nb::arg("resolvers"),
      "Registers the module's tasks, each family with its data: values {family: {key: path}} (its DATA, "
      "resolved) and resolvers {family: callable(key, args) -> [(name, bytes)]}. Once per process.");
}

}  // namespace envhive::bindings
