#pragma once
// Runs one of the Python notebook builders of scripts/report/ (Debian's
// python3 with nbformat, nbconvert, pandas and matplotlib; scripts/setup
// installs them). VNSIM_PYTHON overrides the interpreter.
#include <string>
#include <vector>

namespace vnsim::cli {

// python3 SCRIPT ARGS...; returns 0 on success, 2 when the builder reports
// missing Python modules (its exit status 2), 1 otherwise. Throws InputError
// when the script or interpreter cannot be found.
int run_notebook_builder(const std::string& script, const std::vector<std::string>& args);

}  // namespace vnsim::cli
