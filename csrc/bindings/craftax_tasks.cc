// envhive._craftax: craftax 1.6.1's games in C++. The pixel tasks draw with the installed craftax
// package's textures, decoded at import by envhive.families.craftax.textures() (as craftax's own
// loader reads them); without craftax the symbolic tasks still run and the pixel ones refuse.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <string>

#include "../envs/craftax/classic_env.h"
#include "../envs/craftax/classic_textures.h"
#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive {

void register_module_tasks(TaskRegistry& registry) {
  // Loaded standalone (the build writing its task manifest), envhive is not imported: the tasks
  // are registered without textures (their spaces need none).
  if (nb::cast<nb::dict>(nb::module_::import_("sys").attr("modules")).contains("envhive")) {
    auto source = std::make_shared<craftax::TextureSource>();
    nb::dict arrays = nb::cast<nb::dict>(nb::module_::import_("envhive.families.craftax").attr("textures")());
    for (auto [key, value] : arrays) {
      const std::string name = nb::cast<std::string>(key);
      if (nb::isinstance<nb::ndarray<const uint8_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>>(value)) {
        auto a = nb::cast<nb::ndarray<const uint8_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>>(value);
        if (a.shape(0) != a.shape(1) || a.shape(2) != 4) throw nb::value_error(("craftax texture " + name + " is not square RGBA").c_str());
        craftax::RgbaImage image{static_cast<int>(a.shape(0)), {a.data(), a.data() + a.size()}};
        source->images.emplace(name, std::move(image));
      } else {
        auto a = nb::cast<nb::ndarray<const float, nb::c_contig, nb::device::cpu>>(value);
        source->arrays.emplace(name, std::vector<float>(a.data(), a.data() + a.size()));
      }
    }
    craftax::installed_texture_source() = std::move(source);
  }
  craftax::register_classic_tasks(registry);
}

void bind_module_extras(nanobind::module_& /*m*/) {}

}  // namespace envhive
