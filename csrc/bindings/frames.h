// render()'s side of a pool: the images a task's renderer draws (read once per process), the
// blocks frames are drawn into (handed to Python, never written again), and RenderError.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../core/pool.h"
#include "numpy_views.h"

namespace envhive::bindings {

// Reads the images not yet in RenderImages (the GIL is held): by Frames before a render call, and
// when a pool is made for a task whose observations draw them (TaskMeta::images_at_start).
void load_render_images(const std::string& task_id, const std::vector<std::pair<std::string, std::string>>& images);

class Frames {
 public:
  Frames(const Pool& pool, std::string task_id, std::vector<std::pair<std::string, std::string>> images);

  // ValueError unless the task renders and the pool was made to.
  void check_renders() const;
  // The images the task's renderer draws, read once per process (the GIL is held here).
  void load_images() const;
  // A block for `count` frames and the capsule that owns it for Python (its first view keeps it).
  std::byte* acquire(size_t count, nb::object& owner);
  // The (count, height, width, 3) uint8 array of a drawn block.
  nb::object frames(PyObject* owner, std::byte* blk, size_t count) const;
  [[noreturn]] static void raise_failures(const std::vector<RenderFailure>& failures);

 private:
  const Pool& pool_;
  std::string task_id_;
  std::vector<std::pair<std::string, std::string>> images_;  // the task's TaskMeta::render_images
  std::shared_ptr<BlockRecycler> recycler_;                   // made by the first render
};

}  // namespace envhive::bindings
