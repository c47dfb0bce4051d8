#include "numpy_views.h"

#include <nanobind/stl/string.h>

namespace envhive::bindings {

int npy_type(DType d) {
  switch (d) {
    case DType::kBool: return NPY_BOOL;
    case DType::kUInt8: return NPY_UINT8;
    case DType::kInt8: return NPY_INT8;
    case DType::kInt32: return NPY_INT32;
    case DType::kInt64: return NPY_INT64;
    case DType::kFloat32: return NPY_FLOAT32;
    case DType::kFloat64: return NPY_FLOAT64;
  }
  return NPY_VOID;
}

void raise(const nb::object& type, PyObject* fallback, const std::string& message) {
  PyObject* t = type.is_valid() ? type.ptr() : fallback;
  PyErr_SetString(t, message.c_str());
  throw nb::python_error();
}

namespace {

struct BlockOwner {
  std::shared_ptr<BlockRecycler> recycler;
  std::byte* block;
};

}  // namespace

PyObject* make_owner(const std::shared_ptr<BlockRecycler>& recycler, std::byte* block) {
  auto* owner = new BlockOwner{recycler, block};
  PyObject* cap = PyCapsule_New(owner, "envhive.batch", [](PyObject* c) {
    auto* o = static_cast<BlockOwner*>(PyCapsule_GetPointer(c, "envhive.batch"));
    o->recycler->release(o->block);
    delete o;
  });
  if (!cap) {
    recycler->release(block);
    delete owner;
    throw nb::python_error();
  }
  return cap;
}

nb::object view(PyObject* owner, const void* data, int typenum, int nd, const npy_intp* dims, int flags) {
  PyObject* arr = PyArray_New(&PyArray_Type, nd, const_cast<npy_intp*>(dims), typenum, nullptr,
                              const_cast<void*>(data), 0, flags, nullptr);
  if (!arr) throw nb::python_error();
  Py_INCREF(owner);
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), owner) < 0) {
    Py_DECREF(arr);
    throw nb::python_error();
  }
  return nb::steal(arr);
}

std::string dtype_text(PyArrayObject* a) {
  return nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(PyArray_DESCR(a)))));
}

LeafView LeafView::of(const SpaceSpec& leaf) {
  LeafView v;
  if (leaf.kind == SpaceSpec::Kind::kText) {
    v.typenum = NPY_STRING;
    v.itemsize = static_cast<int>(leaf.shape[0]);
    return v;
  }
  v.typenum = npy_type(leaf.dtype);
  if (leaf.kind == SpaceSpec::Kind::kBox)
    for (int64_t d : leaf.shape) v.dims.push_back(static_cast<npy_intp>(d));
  return v;
}

nb::object LeafView::array(PyObject* owner, const void* data, npy_intp rows) const {
  npy_intp shape[NPY_MAXDIMS];  // no allocation: this runs for every leaf of every batch
  int nd = 0;
  if (rows >= 0) shape[nd++] = rows;
  for (npy_intp d : dims) shape[nd++] = d;
  if (itemsize == 0) return view(owner, data, typenum, nd, shape);
  PyArray_Descr* descr = PyArray_DescrNewFromType(NPY_STRING);
  if (!descr) throw nb::python_error();
  PyDataType_SET_ELSIZE(descr, itemsize);
  PyObject* arr = PyArray_NewFromDescr(&PyArray_Type, descr, nd, shape, nullptr, const_cast<void*>(data),
                                       NPY_ARRAY_CARRAY, nullptr);
  if (!arr) throw nb::python_error();
  Py_INCREF(owner);
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), owner) < 0) {
    Py_DECREF(arr);
    throw nb::python_error();
  }
  return nb::steal(arr);
}

ObsViews::ObsViews(const SpaceSpec& observation) { add(observation); }

size_t ObsViews::add(const SpaceSpec& s) {
  const size_t index = nodes_.size();
  nodes_.emplace_back();
  if (s.is_leaf()) {
    nodes_[index].leaf = leaves_.size();
    leaves_.push_back(LeafView::of(s));
    return index;
  }
  nodes_[index].is_dict = s.kind == SpaceSpec::Kind::kDict;
  nodes_[index].is_tuple = !nodes_[index].is_dict;
  for (const auto& [name, item] : s.items) {
    const size_t child = add(item);  // may grow nodes_: index, not a reference
    nodes_[index].children.push_back(child);
    if (nodes_[index].is_dict) nodes_[index].keys.emplace_back(name.c_str());
  }
  return index;
}

nb::object ObsViews::build(PyObject* owner, const std::byte* const* leaf_data, npy_intp rows) const {
  return build_node(0, owner, leaf_data, rows);
}

nb::object ObsViews::build_node(size_t index, PyObject* owner, const std::byte* const* leaf_data,
                                npy_intp rows) const {
  const Node& node = nodes_[index];
  if (node.is_dict) {
    nb::dict out;
    for (size_t i = 0; i < node.children.size(); ++i)
      out[node.keys[i]] = build_node(node.children[i], owner, leaf_data, rows);
    return out;
  }
  if (node.is_tuple) {
    nb::list items;
    for (size_t child : node.children) items.append(build_node(child, owner, leaf_data, rows));
    return nb::tuple(items);
  }
  return leaves_[node.leaf].array(owner, leaf_data[node.leaf], rows);
}

}  // namespace envhive::bindings
