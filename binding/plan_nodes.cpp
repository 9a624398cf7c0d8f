#include "binding/plan_nodes.h"

#include "binding/binding_json.h"

namespace bert::binding {

// a rank: its place, binding, environment and command prefix (env and prefix may be absent: none)
constexpr auto kRankFields = std::make_tuple(
    field("global_rank", &RankPlan::global_rank), field("node_index", &RankPlan::node_index),
    field("local_rank", &RankPlan::local_rank), field("binding", &RankPlan::binding),
    optional_field("env", &RankPlan::env), optional_field("command_prefix", &RankPlan::command_prefix));
BERT_JSON_FIELDS(ojson, RankPlan, kRankFields)

// a node: host name, topology, ranks
constexpr auto kNodeFields = std::make_tuple(
    field("hostname", &NodePlan::hostname), field("topology", &NodePlan::topology),
    field("ranks", &NodePlan::ranks));
BERT_JSON_FIELDS(ojson, NodePlan, kNodeFields)

}  // namespace bert::binding
