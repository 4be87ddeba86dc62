// JSON (nlohmann) form of the TTGIR IR. Lossless: module_from_json(to_json(m)) == m, so another
// stage can embed a module (e.g. in schedule_graph.json) and rebuild every op from it. Keys are
// written in a fixed order and ids are integers, so the output is byte-stable. Must never
// accept a document that would produce dangling ids: from_json validates and throws Error.
#pragma once

#include <nlohmann/json.hpp>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir {

nlohmann::json to_json(const Type& t);
nlohmann::json to_json(const Attribute& a);
nlohmann::json to_json(const Location& l);
nlohmann::json to_json(const Op& op);
nlohmann::json to_json(const Function& f);
nlohmann::json to_json(const Module& m);

Type type_from_json(const nlohmann::json& j);
Attribute attribute_from_json(const nlohmann::json& j);
Location location_from_json(const nlohmann::json& j);
Module module_from_json(const nlohmann::json& j);

}  // namespace sched2cu::ttgir
