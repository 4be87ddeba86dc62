// Registry of `sched2cu` subcommands. A cmd_<name>.cpp file defines a static Registrar that adds
// its subcommand to the CLI11 app; main.cpp never names a subcommand itself. Subcommands only
// parse flags and call their stage library: no pipeline logic lives here.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace sched2cu::cli {

// Called once with the root app; returns the callback run when the subcommand is chosen. The
// callback returns the process exit code.
using Setup = std::function<std::function<int()>(CLI::App& app)>;

struct Command {
  std::string name;
  int order;  // position in --help
  Setup setup;
};

inline std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}

struct Registrar {
  Registrar(std::string name, int order, Setup setup) {
    commands().push_back({std::move(name), order, std::move(setup)});
  }
};

}  // namespace sched2cu::cli
