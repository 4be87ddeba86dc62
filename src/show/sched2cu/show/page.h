// `sched2cu show`: a schedule graph as one self-contained HTML page (inline SVG, no script, no
// network): the kernel's roles and its register and shared-memory budgets, and per loop its II
// with the bounds under it, the modulo reservation table, the nodes as boxes in role lanes
// coloured by stage (each with its op and Python source line), ring lifetimes against depth,
// channels, and every node in a table. docs/show.md describes the page. It draws what the graph
// records and never re-schedules or writes a graph.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::show {

// The text of a source file the graph names (a node's Python file, as its location spells it),
// or nullopt when there is none to read: the page then gives the location without the line.
using SourceReader = std::function<std::optional<std::string>(const std::string& path)>;

struct PageOptions {
  std::string title;     // the page's title; empty: "<kernel> schedule"
  SourceReader sources;  // empty: no source lines
};

// The page of `g`, which must have passed sgraph::validate (read_graph does that).
std::string render_schedule_page(const sgraph::ScheduleGraph& g, const PageOptions& o);

// Reads and validates the graph at `path`: a missing or unreadable file, a syntax error
// (file:line:col), a schema error or a failed validation (the JSON path) is a sched2cu::Error.
sgraph::ScheduleGraph read_graph(const std::filesystem::path& path);

// Reads the Python sources of the graph at `graph_path`: locations are relative to the
// directory of the TTGIR the graph was scheduled from (tools/dump_ttgir.py writes them so),
// found as kernel.source under the repository holding the graph, else beside the graph. Only
// relative paths without ".." are read: a location never makes the page read another file.
SourceReader sources_of(const std::filesystem::path& graph_path, const sgraph::ScheduleGraph& g);

// A page linking to several schedule pages: per entry its case name, kernel and page link.
struct IndexEntry {
  std::string name, kernel, href;
};
std::string render_index_page(const std::string& title, const std::vector<IndexEntry>& entries);

}  // namespace sched2cu::show
