// What the filter and test files share: the filter signature and jinja2's
// attribute getter (make_attrgetter) used by map, sort, selectattr, ...
#ifndef ORCD_HOST_CHAT_JINJA_FILTER_SUPPORT_H_
#define ORCD_HOST_CHAT_JINJA_FILTER_SUPPORT_H_

#include <span>
#include <string_view>

#include "host/chat/jinja/call_args.h"
#include "host/chat/jinja/value.h"

namespace orcd::jinja {

using FilterFn = Value (*)(Renderer& renderer, const Value& operand, ArgReader& args);
struct FilterEntry {
  std::string_view name;
  FilterFn fn;
};

// map, select, sort and the other filters over sequences (sequence_filters.cc).
std::span<const FilterEntry> SequenceFilters();

// item.a.b as jinja2's make_attrgetter reads "a.b" (digits index lists);
// fallback replaces an undefined result when it is not None.
Value GetAttribute(const Value& item, const Value& attribute, const Value& fallback);
// jinja2's ignore_case: strings lower-cased, other values unchanged.
Value IgnoreCase(const Value& v);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_FILTER_SUPPORT_H_
