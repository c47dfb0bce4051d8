// A minimal test harness: TEST(name) registers a function, CHECK(cond) fails it with file and line.
#pragma once

#include <cstdio>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace envhive::testing {

struct TestCase {
  const char* name;
  std::function<void()> run;
};
std::vector<TestCase>& tests();

struct Register {
  Register(const char* name, std::function<void()> run) { tests().push_back({name, std::move(run)}); }
};

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace envhive::testing

#define ENVHIVE_CAT2(a, b) a##b
#define ENVHIVE_CAT(a, b) ENVHIVE_CAT2(a, b)
#define TEST(name)                                                                                  \
  static void name();                                                                               \
  static ::envhive::testing::Register ENVHIVE_CAT(register_, name)(#name, name);                    \
  static void name()

#define CHECK(cond)                                                                                 \
  do {                                                                                              \
    if (!(cond)) {                                                                                  \
      std::ostringstream _msg;                                                                      \
      _msg << __FILE__ << ":" << __LINE__ << ": CHECK(" #cond ") failed";                           \
      throw ::envhive::testing::Failure(_msg.str());                                                \
    }                                                                                               \
  } while (0)

#define CHECK_EQ(a, b)                                                                              \
  do {                                                                                              \
    const auto _a = (a);                                                                            \
    const auto _b = (b);                                                                            \
    if (!(_a == _b)) {                                                                              \
      std::ostringstream _msg;                                                                      \
      _msg << __FILE__ << ":" << __LINE__ << ": CHECK_EQ(" #a ", " #b ") failed: " << _a << " != " << _b; \
      throw ::envhive::testing::Failure(_msg.str());                                                \
    }                                                                                               \
  } while (0)

#define CHECK_THROWS(expr, substring)                                                               \
  do {                                                                                              \
    bool _threw = false;                                                                            \
    try {                                                                                           \
      (void)(expr);                                                                                 \
    } catch (const std::exception& _e) {                                                            \
      _threw = std::string(_e.what()).find(substring) != std::string::npos;                        \
      if (!_threw) {                                                                                \
        std::ostringstream _msg;                                                                    \
        _msg << __FILE__ << ":" << __LINE__ << ": " #expr " threw '" << _e.what()                   \
             << "', expected it to mention '" << substring << "'";                                  \
        throw ::envhive::testing::Failure(_msg.str());                                              \
      }                                                                                             \
    }                                                                                               \
    if (!_threw) {                                                                                  \
      std::ostringstream _msg;                                                                      \
      _msg << __FILE__ << ":" << __LINE__ << ": " #expr " did not throw";                           \
      throw ::envhive::testing::Failure(_msg.str());                                                \
    }                                                                                               \
  } while (0)
