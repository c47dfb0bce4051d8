// Not Python's header: a stand-in that Box2D's sources (as pybox2d ships them) see instead.
//
// pybox2d's b2Settings.h defines b2Assert(A) as
//   if (!(A)) { PyErr_SetString(PyExc_AssertionError, #A); throw b2AssertException(); }
// and includes <Python.h> for it. envhive compiles those sources unchanged (csrc/envs/box2d/
// box2d.cmake puts this folder first on their include path): the failed condition's text is kept
// per thread, the b2AssertException is still thrown, and the env turns it into an error naming the
// condition (box2d::rethrow_assertion). Nothing here touches Python.
#pragma once

namespace envhive::box2d {
// The condition of the last b2Assert that failed on this thread (a string literal), or nullptr.
inline thread_local const char* failed_assertion = nullptr;
}  // namespace envhive::box2d

#define PyExc_AssertionError nullptr
#define PyErr_SetString(type, message) ((void)(type), ::envhive::box2d::failed_assertion = (message))
