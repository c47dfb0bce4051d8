#include <cstring>

#include "check.h"

namespace envhive::testing {
std::vector<TestCase>& tests() {
  static std::vector<TestCase> all;
  return all;
}
}  // namespace envhive::testing

// envhive_core_tests [NAME-SUBSTRING]: runs every test (or those whose name contains the argument).
int main(int argc, char** argv) {
  int failed = 0, ran = 0;
  for (const auto& t : envhive::testing::tests()) {
    if (argc > 1 && std::strstr(t.name, argv[1]) == nullptr) continue;
    ++ran;
    try {
      t.run();
      std::printf("ok    %s\n", t.name);
    } catch (const std::exception& e) {
      ++failed;
      std::printf("FAIL  %s\n      %s\n", t.name, e.what());
    }
    std::fflush(stdout);
  }
  std::printf("%d of %d tests passed\n", ran - failed, ran);
  return failed == 0 && ran > 0 ? 0 : 1;
}
