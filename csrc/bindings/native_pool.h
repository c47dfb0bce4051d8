// NativePool: the pool as Python sees it. Everything Python hands in is validated here before
// anything is queued; results leave as numpy arrays viewing a batch block owned by a capsule (no
// copy, no per-env object).
//
// Threads: a pool serves one call at a time. A call made while another thread's call is inside
// the pool (waiting with the GIL released) raises PoolBusyError; close() from another thread makes
// the call in flight return (it raises PoolClosedError) and then closes.
#pragma once

#include <nanobind/nanobind.h>

namespace envhive::bindings {

// The Python exception types the pool raises beyond the built-in ones (envhive.errors); set once
// at import by envhive.catalog through the module's set_error_types().
struct ErrorTypes {
  nanobind::object env_error;      // EnvError(message, env_id, env_ids, error)
  nanobind::object reset_needed;   // ResetNeeded(message)
  nanobind::object pool_closed;    // PoolClosedError(message), a ValueError
  nanobind::object pool_busy;      // PoolBusyError(message), a RuntimeError
  nanobind::object render_error;   // RenderError(message, env_id, env_ids), a RuntimeError
};
ErrorTypes& error_types();

// Reads a PNG file into an (height, width, 4) uint8 array (envhive.images.read_png_rgba); set once
// at import by envhive.catalog through the module's set_image_reader(). Render images
// (TaskMeta::render_images) are read with it before the first frame that needs them.
nanobind::object& image_reader();

void bind_native_pool(nanobind::module_& m);

}  // namespace envhive::bindings
