// Internal to src/show: the SVG pictures of a schedule page, one function per picture, drawn
// from the model of view.h. Pictures only: no HTML around them and no reading of files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sched2cu/sgraph/schedule_graph.h"
#include "sched2cu/show/view.h"

namespace sched2cu::show {

// What a node's box and tooltip say about its op.
struct NodeText {
  std::string op;      // "ttng.warp_group_dot"
  std::string name;    // the location's name ("qk"), may be empty
  std::string where;   // the Python location "kernel.py:30:23", or the TTGIR one, or ""
  std::string line;    // the same without its column ("kernel.py:30"), for the box
  std::string python;  // the text of that Python line, trimmed, or ""
};

// The fill of stage `stage` (a colour-blind-safe palette, cycled).
std::string stage_colour(int stage);

// II against each bound: engine and issue parts, RecMII and the summed super-nodes.
std::string draw_bounds(const Bounds& b);
// The modulo reservation table: rows x the II's columns.
std::string draw_mrt(const Mrt& t, const sgraph::Loop& loop, const std::vector<NodeText>& texts);
// Every node as a box at its cycle in its role's lane, coloured by stage: a
// <g class="node" data-loop="LOOP" data-node="ID" data-stage="S"> per node (a super-node's box
// links to its loop's section).
std::string draw_lanes(const sgraph::ScheduleGraph& g, size_t loop,
                       const std::vector<NodeText>& texts);
// Each ring buffer's lifetime against its ring's depth x II.
std::string draw_rings(const sgraph::ScheduleGraph& g, size_t loop);
// Stacked bars of a budget, with the limit marked.
std::string draw_budget(const Budget& b, std::string_view label);

}  // namespace sched2cu::show
