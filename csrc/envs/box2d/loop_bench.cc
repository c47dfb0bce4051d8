// box2d_loop_bench DATA_DIR TASK_ID [SECONDS] [SEED]: the single-thread limit (core/loop_bench.h).
//
// CarRacing's observations draw pygame's glyphs, which only Python can make: `box2d_loop_bench
// --images TASK_ID` lists the render images a task needs when its pool is made (name, source);
// the caller writes each as DATA_DIR/<name, '/' as '__'>.rgba (int32 width, int32 height, then the
// RGBA bytes; benchmarks/loop_bench_build.py does it with envhive.images) and they are loaded here.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "../../core/loop_bench.h"
#include "box2d.h"

namespace {

void load_images(envhive::TaskRegistry& registry, const std::string& dir) {
  for (const auto& task : registry.tasks()) {
    if (!task.meta.images_at_start) continue;
    for (const auto& [name, source] : task.meta.render_images) {
      std::string file = name;
      for (size_t p = file.find('/'); p != std::string::npos; p = file.find('/', p + 2)) file.replace(p, 1, "__");
      std::ifstream in(dir + "/" + file + ".rgba", std::ios::binary);
      if (!in) continue;  // the task then fails at its first reset, naming the image
      int32_t size[2];
      in.read(reinterpret_cast<char*>(size), sizeof(size));
      envhive::RgbaImage img;
      img.width = size[0];
      img.height = size[1];
      img.rgba.resize(static_cast<size_t>(size[0]) * static_cast<size_t>(size[1]) * 4);
      in.read(reinterpret_cast<char*>(img.rgba.data()), static_cast<std::streamsize>(img.rgba.size()));
      envhive::RenderImages::get().put(name, std::move(img));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--images") == 0) {
    envhive::TaskRegistry registry;
    envhive::register_box2d(registry);
    const envhive::TaskDef* task = registry.find(argv[2]);
    if (!task) return 2;
    if (task->meta.images_at_start)
      for (const auto& [name, source] : task->meta.render_images) std::printf("%s\t%s\n", name.c_str(), source.c_str());
    return 0;
  }
  return envhive::run_loop_bench(argc, argv, [](envhive::TaskRegistry& r, const std::string& dir) {
    envhive::register_box2d(r);
    load_images(r, dir);
  });
}
