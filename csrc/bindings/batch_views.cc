#include "batch_views.h"

namespace envhive::bindings {

BatchViews::BatchViews(const Spaces& spaces, const PoolOptions& options)
    : spaces_(spaces),
      rows_(options.batch_size),
      obs_(spaces.observation) {
  for (const auto& info : spaces.infos) {
    info_names_.push_back(nb::str(info.name.c_str()));
    final_info_masks_.push_back(nb::str(("_" + info.name).c_str()));
    std::vector<npy_intp> dims{rows_};
    for (auto d : info.shape) dims.push_back(d);
    info_dims_.push_back(dims);
  }
}

BatchOutputs BatchViews::outputs(PyObject* owner, std::byte* blk, const BatchLayout& L) const {
  const npy_intp rows[1] = {rows_};
  BatchOutputs out;
  const std::byte* leaves[kMaxObsLeaves];
  for (size_t k = 0; k < L.obs.size(); ++k) leaves[k] = L.obs[k].in(blk);
  out.obs = obs_.build(owner, leaves, rows_);
  out.reward = view(owner, L.reward.in(blk), NPY_FLOAT64, 1, rows);
  out.terminated = view(owner, L.terminated.in(blk), NPY_BOOL, 1, rows);
  out.truncated = view(owner, L.truncated.in(blk), NPY_BOOL, 1, rows);
  nb::object env_id = view(owner, L.env_id.in(blk), NPY_INT32, 1, rows);
  out.info["env_id"] = env_id;
  out.info["elapsed_step"] = view(owner, L.elapsed_step.in(blk), NPY_INT32, 1, rows);
  const auto& infos = spaces_.infos;
  for (size_t f = 0; f < infos.size(); ++f)
    out.info[info_names_[f]] = view(owner, L.infos[f].in(blk), npy_type(infos[f].dtype),
                                    static_cast<int>(info_dims_[f].size()), info_dims_[f].data());
  if (L.with_final) add_final(out.info, owner, blk, L, env_id);
  return out;
}

void BatchViews::add_final(nb::dict& info, PyObject* owner, std::byte* blk, const BatchLayout& L,
                           nb::handle env_id) const {
  const bool* mask = L.final_mask.in(blk);
  bool any = false;
  for (npy_intp r = 0; r < rows_; ++r) any = any || mask[r];
  if (!any) return;
  const npy_intp dims[1] = {rows_};
  nb::object mask_arr = view(owner, mask, NPY_BOOL, 1, dims);
  PyObject* objs = PyArray_SimpleNew(1, const_cast<npy_intp*>(dims), NPY_OBJECT);
  if (!objs) throw nb::python_error();
  nb::object final_obs = nb::steal(objs);
  const std::byte* leaves[kMaxObsLeaves];
  for (npy_intp r = 0; r < rows_; ++r) {
    PyObject* item;
    if (mask[r]) {
      for (size_t k = 0; k < L.final_obs.size(); ++k) leaves[k] = L.final_obs[k].row(blk, static_cast<size_t>(r));
      item = obs_.build(owner, leaves, -1).release().ptr();
    } else {
      item = Py_None;
      Py_INCREF(item);
    }
    PyObject** slot = static_cast<PyObject**>(PyArray_GETPTR1(reinterpret_cast<PyArrayObject*>(objs), r));
    Py_XDECREF(*slot);
    *slot = item;
  }
  nb::dict final_info;
  final_info["env_id"] = env_id;
  final_info["_env_id"] = mask_arr;
  final_info["elapsed_step"] = view(owner, L.final_elapsed_step.in(blk), NPY_INT32, 1, dims);
  final_info["_elapsed_step"] = mask_arr;
  const auto& infos = spaces_.infos;
  for (size_t f = 0; f < infos.size(); ++f) {
    final_info[info_names_[f]] = view(owner, L.final_infos[f].in(blk), npy_type(infos[f].dtype),
                                      static_cast<int>(info_dims_[f].size()), info_dims_[f].data());
    final_info[final_info_masks_[f]] = mask_arr;
  }
  info["final_obs"] = final_obs;
  info["_final_obs"] = mask_arr;
  info["final_info"] = final_info;
  info["_final_info"] = mask_arr;
}

}  // namespace envhive::bindings
