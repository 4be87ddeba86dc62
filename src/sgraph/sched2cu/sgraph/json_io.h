// Reading and writing schedule_graph.json. The writer is deterministic and byte-stable (fixed key
// order, integers and strings only, one fixed layout), so write -> read -> write reproduces the
// file exactly. The reader never trusts its input: syntax errors name file:line:col, schema
// errors name the JSON path (e.g. "/loops/0/nodes/3/stage"). It does not check cross-references;
// validate() in validate.h does.
#pragma once

#include <filesystem>
#include <string>

#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::sgraph {

// Serializes `g` (ends with a newline).
std::string to_json_text(const ScheduleGraph& g);

// Parses `text`; `file` is only used in error messages. Throws sched2cu::Error.
ScheduleGraph from_json_text(const std::string& text, const std::string& file);

// File wrappers (atomic write). Throw sched2cu::Error.
ScheduleGraph read_schedule_graph(const std::filesystem::path& path);
void write_schedule_graph(const ScheduleGraph& g, const std::filesystem::path& path);

}  // namespace sched2cu::sgraph
