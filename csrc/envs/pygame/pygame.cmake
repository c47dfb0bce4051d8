# envhive_pygame: a rasterizer with pygame's integer rules (canvas, transform), shared by the
# families whose Gymnasium references draw with pygame (classic control, toy text, Box2D).
include_guard(GLOBAL)
add_library(envhive_pygame STATIC "${CMAKE_CURRENT_LIST_DIR}/canvas.cc" "${CMAKE_CURRENT_LIST_DIR}/canvas_ce.cc"
  "${CMAKE_CURRENT_LIST_DIR}/transform.cc")
_envhive_cxx_settings(envhive_pygame)
target_link_libraries(envhive_pygame PUBLIC envhive_core)
