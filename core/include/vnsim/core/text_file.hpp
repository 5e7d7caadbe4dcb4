#pragma once
// Text inputs: a whole file as text, for inputs that are parsed in one piece
// (JSON profiles, run configs, traces compared byte for byte), and the
// blank-trimming that small hand-written CSV inputs share.
#include <string>

namespace vnsim {

// Throws InputError "PATH: cannot read" when the file cannot be opened.
std::string read_text_file(const std::string& path);

// `s` without leading and trailing spaces, tabs and carriage returns (a
// CRLF line read with getline keeps its '\r').
std::string trim_blanks(const std::string& s);

}  // namespace vnsim
