#include "frames.h"

#include <nanobind/stl/string.h>

#include <sstream>

#if defined(__linux__)
#include <unistd.h>
#endif

#include "native_pool.h"

namespace envhive::bindings {

namespace {

// Frame blocks the recycler keeps for reuse (the frames a caller holds, and the next call's), also
// the blocks counted against memory.
constexpr size_t kFrameBlocksKept = 2;

// A render block must fit in memory with room to spare (as the pool checks its output batches).
void check_frame_bytes(size_t bytes) {
#if defined(__linux__)
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (physical > 0 && static_cast<double>(bytes) * kFrameBlocksKept > physical / 2)
    throw nb::value_error(("render(): the frames need " + std::to_string(static_cast<double>(bytes) / 1e9) +
                           " GB, too much for this machine's memory; render fewer envs at once (env_ids=...)")
                              .c_str());
#else
  (void)bytes;
#endif
}

}  // namespace

Frames::Frames(const Pool& pool, std::string task_id, std::vector<std::pair<std::string, std::string>> images)
    : pool_(pool), task_id_(std::move(task_id)), images_(std::move(images)) {}

void Frames::check_renders() const {
  if (!pool_.spaces().render.available())
    throw nb::value_error((task_id_ + " has no renderer: it declares no frames to draw").c_str());
  if (!pool_.options().render)
    throw nb::value_error("this pool was made without render_mode; make it with render_mode='rgb_array' to render");
}

void Frames::load_images() const { load_render_images(task_id_, images_); }

void load_render_images(const std::string& task_id, const std::vector<std::pair<std::string, std::string>>& images) {
  for (const auto& [name, path] : images) {
    if (RenderImages::get().has(name)) continue;
    if (path.empty())
      raise(error_types().render_error, PyExc_RuntimeError,
            task_id + ": cannot find the image file of its renderer's '" + name +
                "' (Gymnasium's assets folder was not found when envhive loaded)");
    const nb::object& reader = image_reader();
    if (!reader.is_valid())
      raise(error_types().render_error, PyExc_RuntimeError,
            "cannot read render image '" + name + "': no image reader was installed (import envhive first)");
    nb::object img = reader(path);
    PyObject* conv = PyArray_FromAny(img.ptr(), PyArray_DescrFromType(NPY_UINT8), 3, 3,
                                     NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, nullptr);
    if (!conv) throw nb::python_error();
    nb::object conv_holder = nb::steal(conv);
    auto* a = reinterpret_cast<PyArrayObject*>(conv);
    if (PyArray_DIM(a, 2) != kRgbaChannels) throw nb::value_error(("render image " + path + " is not RGBA").c_str());
    RgbaImage rgba;
    rgba.height = static_cast<int>(PyArray_DIM(a, 0));
    rgba.width = static_cast<int>(PyArray_DIM(a, 1));
    const auto* data = static_cast<const uint8_t*>(PyArray_DATA(a));
    rgba.rgba.assign(data, data + PyArray_NBYTES(a));
    RenderImages::get().put(name, std::move(rgba));
  }
}

std::byte* Frames::acquire(size_t count, nb::object& owner) {
  const size_t bytes = pool_.spaces().render.frame_bytes() * count;
  check_frame_bytes(bytes);
  // Blocks come from a recycler of their size (the last size asked for; blocks Python still holds
  // keep their own recycler alive).
  if (!recycler_ || recycler_->block_bytes() != bytes)
    recycler_ = std::make_shared<BlockRecycler>(bytes, kFrameBlocksKept);
  std::byte* blk = recycler_->acquire();
  owner = nb::steal(make_owner(recycler_, blk));
  return blk;
}

nb::object Frames::frames(PyObject* owner, std::byte* blk, size_t count) const {
  const RenderSpec& rs = pool_.spaces().render;
  const npy_intp dims[4] = {static_cast<npy_intp>(count), rs.height, rs.width, kRgbChannels};
  return view(owner, blk, NPY_UINT8, 4, dims);
}

void Frames::raise_failures(const std::vector<RenderFailure>& failures) {
  bool same = true;
  for (const auto& f : failures) same = same && f.message == failures[0].message;
  std::ostringstream msg;
  msg << "env " << failures[0].env_id << " could not be rendered: " << failures[0].message;
  if (failures.size() > 1)
    msg << " (and " << failures.size() - 1 << " more env(s) failed" << (same ? " the same way" : "") << ")";
  nb::list ids;
  for (const auto& f : failures) ids.append(f.env_id);
  const nb::object& type = error_types().render_error;
  if (!type.is_valid()) raise(nb::object(), PyExc_RuntimeError, msg.str());
  nb::object err = type(msg.str(), failures[0].env_id, ids);
  PyErr_SetObject(type.ptr(), err.ptr());
  throw nb::python_error();
}

}  // namespace envhive::bindings
