// The RCP checker's per-file reader (substring-picked lines) and its decision for one directory.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "results/log_parser.h"
#include "results/pyvalue.h"
#include "results/rcp.h"

namespace bert::results::rcp {
namespace {

// Python round(x, 3): correctly rounded decimal, ties to even (glibc printf is exact too).
double round3(double x) {
  if (!std::isfinite(x)) return x;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return std::strtod(buf, nullptr);
}

struct ReadError {
  std::string what;
};

json load_or_raise(std::string_view payload, const char* why) {
  auto r = pyjson::loads(payload);
  if (!r.ok) throw ReadError{std::string("a line picked as ") + why + " is not valid JSON: " + r.error};
  if (!r.value.is_object()) throw ReadError{std::string("a line picked as ") + why + " is not a JSON object"};
  return r.value;
}

const json& field(const json& obj, const char* name, const char* why) {
  if (!obj.is_object() || !obj.contains(name))
    throw ReadError{std::string("a line picked as ") + why + " has no '" + name + "'"};
  return obj[name];
}

}  // namespace

SubmissionFile read_submission(std::string_view bytes, bool use_train_samples) {
  SubmissionFile out;
  std::optional<json> conv;
  try {
    for_each_line(bytes, [&](std::string_view raw) {
      std::string_view line = mllog_payload_line(raw);
      if (line.size() < kMllogToken.size()) return;
      const std::string_view str = line.substr(kMllogToken.size());
      auto has = [&](std::string_view s) { return str.find(s) != std::string_view::npos; };
      if (has("global_batch_size")) {
        const json j = load_or_raise(str, "global_batch_size");
        const json& v = field(j, "value", "global_batch_size");
        if (!py::is_number(v)) throw ReadError{"global_batch_size is not a number: " + py::repr(v)};
        out.bs = v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
      }
      if (has("submission_benchmark")) {
        out.benchmark = py::str(field(load_or_raise(str, "submission_benchmark"), "value", "submission_benchmark"));
        if (*out.benchmark != "bert") use_train_samples = false;
      }
      if (!use_train_samples && (has("eval_error") || has("eval_accuracy"))) {
        const json j = load_or_raise(str, "eval_accuracy");
        const json& md = field(j, "metadata", "eval_accuracy");
        json e = field(md, "epoch_num", "eval_accuracy");
        if (e.is_number_float()) e = round3(e.get<double>());
        conv = e;
      } else if (use_train_samples && has("train_samples")) {
        conv = field(load_or_raise(str, "train_samples"), "value", "train_samples");
      }
      if (has("run_stop")) {
        json j = load_or_raise(str, "run_stop");
        if (py::equal(field(j, "key", "run_stop"), json("run_stop"))) {
          const json& status = field(field(j, "metadata", "run_stop"), "status", "run_stop");
          if (py::equal(status, json("success"))) {
            if (!conv) throw ReadError{"run_stop success before any eval_accuracy line"};
            if (!py::is_number(*conv)) throw ReadError{"samples to converge is not a number: " + py::repr(*conv)};
            out.converged = true;
            out.samples = conv->is_boolean() ? (conv->get<bool>() ? 1.0 : 0.0) : conv->get<double>();
          } else {
            out.converged = false;
            out.samples = 1e9;
          }
        }
      }
    });
  } catch (const ReadError& e) {
    out.error = e.what;
  }
  return out;
}

namespace {

std::string missing_rcp(double bs) {
  return "Missing RCP, please submit RCP with BS = " +
         py::str(bs == std::floor(bs) ? json(static_cast<int64_t>(bs)) : json(bs));
}

}  // namespace

Coverage coverage(double bs, bool use_pruned) {
  const Table& t = bert_table();
  const auto& recs = use_pruned ? t.pruned : t.full;
  Coverage c;
  const Record* exact = nullptr;
  const Record* below = nullptr;  // largest BS < bs
  const Record* above = nullptr;  // smallest BS > bs (below 1e9)
  for (const auto& r : recs) {
    if (r.bs == bs && !exact) exact = &r;
    if (r.bs < bs && r.bs > (below ? below->bs : 0)) below = &r;
    if (r.bs > bs && r.bs < (above ? above->bs : 1e9)) above = &r;
  }
  if (exact) {
    c.kind = Coverage::Kind::Exact;
    c.record = *exact;
  } else if (below && above) {
    c.kind = Coverage::Kind::Interpolated;
    c.record = interpolate(bs, *below, *above);
    c.lo_bs = below->bs;
    c.hi_bs = above->bs;
  } else if (below) {
    c.kind = Coverage::Kind::Missing;
    c.lo_bs = below->bs;
  } else if (above) {
    const Record* smallest = &recs.front();
    for (const auto& r : recs)
      if (r.bs < smallest->bs) smallest = &r;
    c.kind = Coverage::Kind::BelowSmallest;
    c.record = *smallest;
  }
  return c;
}

Decision decide(double bs, std::vector<double> samples, bool use_pruned) {
  Decision d;
  std::sort(samples.begin(), samples.end());
  const double mean = samples.size() >= 2 ? np_mean(samples, 1, samples.size() - 1) : std::nan("");
  d.submission_mean = mean;
  auto eval = [&](const Record& r) {
    d.record = r;
    const double nf = r.mean / mean;
    d.norm_factor = nf < 1 ? 1.0 : nf;
    return mean >= r.mean / r.max_speedup;
  };
  const Coverage c = coverage(bs, use_pruned);
  switch (c.kind) {
    case Coverage::Kind::Exact:
      d.message = "RCP found";
      d.passed = eval(*c.record);
      break;
    case Coverage::Kind::Interpolated:
      d.message = "RCP Interpolation";
      d.passed = eval(*c.record);
      break;
    case Coverage::Kind::Missing:
      d.message = missing_rcp(bs);
      break;
    case Coverage::Kind::BelowSmallest:
      d.passed = eval(*c.record);
      d.message = d.passed ? "RCP not found but slower convergence on smaller batch size" : missing_rcp(bs);
      break;
    case Coverage::Kind::NoRcps:
      d.message = "Cannot find any RCPs";
      break;
  }
  return d;
}

}  // namespace bert::results::rcp
