#pragma once
// Errors that reach the user. Every message names where the problem is
// (file:line, or a JSON field path) and why, so a bad input never becomes a
// crash or a silent drop.
#include <stdexcept>
#include <string>

namespace vnsim {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "file:line: reason" for row-oriented inputs.
inline InputError input_error_at(const std::string& file, long line, const std::string& reason) {
  return InputError(file + ":" + std::to_string(line) + ": " + reason);
}

}  // namespace vnsim
