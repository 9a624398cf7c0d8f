// Test helpers: a temp directory with small files (removed at scope exit), and the message of a UserError.
#pragma once
#include <string>

#include "common/user_error.h"
#include "tests/unit/temp_dir.h"

// The message of the UserError `f` throws ("" when it does not throw).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const bert::UserError& e) {
    return e.what();
  }
  return "";
}

