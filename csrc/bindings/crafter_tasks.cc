// envhive._crafter: crafter's Crafter in C++. Its textures are the installed crafter package's
// assets, read at import by envhive.families.crafter.textures() (as crafter's imageio reads them);
// the binding checks the rules compiled in against the package's data.yaml.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <string>

#include "../envs/crafter/crafter.h"
#include "../envs/crafter/rules.h"
#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive {

void register_module_tasks(TaskRegistry& registry) {
  auto textures = std::make_shared<crafter::TextureSet>();
  // Loaded standalone (the build writing its task manifest), envhive is not imported and importing
  // it here would load this module again: the tasks are registered without textures (their spaces
  // need none). Imported as envhive._crafter, the package is always imported first.
  if (!nb::cast<nb::dict>(nb::module_::import_("sys").attr("modules")).contains("envhive")) {
    crafter::register_tasks(registry, std::move(textures));
    return;
  }
  nb::module_ family = nb::module_::import_("envhive.families.crafter");
  nb::dict images = nb::cast<nb::dict>(family.attr("textures")());
  for (auto [name, image] : images) {
    auto a = nb::cast<nb::ndarray<const uint8_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>>(image);
    textures->add(nb::cast<std::string>(name), static_cast<int>(a.shape(0)), static_cast<int>(a.shape(1)),
                  static_cast<int>(a.shape(2)), a.data());
  }
  nb::list numbers;
  for (const auto& [path, value] : crafter::rule_numbers()) numbers.append(nb::make_tuple(path, value));
  family.attr("check_rules")(numbers);
  crafter::register_tasks(registry, std::move(textures));
}

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
