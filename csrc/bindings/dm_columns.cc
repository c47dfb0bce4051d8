#include "dm_columns.h"

#include <algorithm>

namespace envhive::bindings {

DmColumns::DmColumns(const Spaces& spaces) : spaces_(spaces) {
  for (size_t f = 0; f < spaces.infos.size(); ++f)
    if (spaces.infos[f].name == "discount" && spaces.infos[f].shape.empty()) discount_info_ = static_cast<int>(f);
}

void DmColumns::set_timestep_type(nb::handle type) {
  if (!PyType_Check(type.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()), &PyTuple_Type) ||
      reinterpret_cast<PyTypeObject*>(type.ptr())->tp_basicsize != PyTuple_Type.tp_basicsize)
    throw nb::type_error("timestep_type must be a tuple subclass without instance attributes (dm_env.TimeStep)");
  timestep_type_ = nb::borrow(type);
}

void DmColumns::check_timestep_type() const {
  if (!timestep_type_.is_valid()) throw nb::value_error("set timestep_type (dm_env.TimeStep) before step_dm / recv_dm");
}

nb::tuple DmColumns::timestep(PyObject* owner, std::byte* blk, const BatchLayout& L, BatchOutputs& out) const {
  write(blk, L);
  const npy_intp rows[1] = {static_cast<npy_intp>(L.rows)};
  constexpr int kReadOnly = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
  nb::object step_type = view(owner, L.step_type.in(blk), NPY_INT8, 1, rows, kReadOnly);
  nb::object discount = view(owner, L.discount.in(blk), NPY_FLOAT32, 1, rows, kReadOnly);
  // tuple.__new__(timestep_type, ...) without its argument parsing: the type has no fields beyond
  // the tuple's (set_timestep_type checks), so it is a tuple of the four, typed.
  auto* type = reinterpret_cast<PyTypeObject*>(timestep_type_.ptr());
  PyObject* ts = type->tp_alloc(type, 4);
  if (!ts) throw nb::python_error();
  PyTuple_SET_ITEM(ts, 0, step_type.release().ptr());
  PyTuple_SET_ITEM(ts, 1, out.reward.release().ptr());
  PyTuple_SET_ITEM(ts, 2, discount.release().ptr());
  PyTuple_SET_ITEM(ts, 3, out.obs.release().ptr());
  return nb::make_tuple(nb::steal(ts), nb::make_tuple(out.info, out.terminated, out.truncated));
}

void DmColumns::write(std::byte* blk, const BatchLayout& L) const {
  const size_t rows = L.rows;
  const bool* terminated = L.terminated.in(blk);
  const bool* truncated = L.truncated.in(blk);
  const int32_t* elapsed = L.elapsed_step.in(blk);
  int8_t* step_type = L.step_type.in(blk);
  float* discount = L.discount.in(blk);
  for (size_t r = 0; r < rows; ++r) {
    step_type[r] = terminated[r] || truncated[r] ? int8_t{2} : elapsed[r] == 0 ? int8_t{0} : int8_t{1};
    discount[r] = terminated[r] ? 0.0f : 1.0f;
  }
  if (discount_info_ < 0) return;
  const std::byte* task = L.infos[static_cast<size_t>(discount_info_)].in(blk);
  auto lower = [&]<class T>(const T* values) {
    for (size_t r = 0; r < rows; ++r) discount[r] = std::min(discount[r], static_cast<float>(values[r]));
  };
  switch (spaces_.infos[static_cast<size_t>(discount_info_)].dtype) {
    case DType::kBool: lower(reinterpret_cast<const bool*>(task)); break;
    case DType::kUInt8: lower(reinterpret_cast<const uint8_t*>(task)); break;
    case DType::kInt8: lower(reinterpret_cast<const int8_t*>(task)); break;
    case DType::kInt32: lower(reinterpret_cast<const int32_t*>(task)); break;
    case DType::kInt64: lower(reinterpret_cast<const int64_t*>(task)); break;
    case DType::kFloat32: lower(reinterpret_cast<const float*>(task)); break;
    case DType::kFloat64: lower(reinterpret_cast<const double*>(task)); break;
  }
}

}  // namespace envhive::bindings
