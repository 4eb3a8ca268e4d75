// Python's operators on template values, with the sandbox's lookups:
// arithmetic (bool is an int, int/float mix, str and list concatenation),
// comparisons and `in`, attribute and item access that yield Undefined
// instead of failing (except on an undefined object), slicing, iteration.
#ifndef ORCD_HOST_CHAT_JINJA_OPERATORS_H_
#define ORCD_HOST_CHAT_JINJA_OPERATORS_H_

#include <cstdint>
#include <string_view>

#include "host/chat/jinja/ast.h"
#include "host/chat/jinja/value.h"

namespace orcd::jinja {

// Throws UndefinedError (with v's hint) when v is undefined.
void RequireDefined(const Value& v);

// a op b. max_bytes bounds a string or list the operation would build
// (str * n); TemplateError(kLimit) beyond it.
Value BinaryOperation(BinaryOp op, const Value& a, const Value& b, size_t max_bytes);
Value Negate(const Value& v);
Value Positive(const Value& v);

bool PyEquals(const Value& a, const Value& b);
// a < b; TypeError between types Python does not order.
bool PyLess(const Value& a, const Value& b);
bool Compare(CompareOp op, const Value& a, const Value& b);
// item in container.
bool Contains(const Value& container, const Value& item);

// obj.name: a Python attribute (method, namespace field) first, then a key.
Value GetAttr(const Value& obj, std::string_view name);
// obj[key]: an item first, then (string keys) a Python attribute.
Value GetItem(const Value& obj, const Value& key);
// obj[start:stop:step]; each bound may be undefined (absent) or None.
Value GetSlice(const Value& obj, const Value& start, const Value& stop, const Value& step);

// The items a for loop or list() visits: list items, dict keys, string
// characters, nothing for undefined. TypeError for the rest.
ValueList Iterate(const Value& v);
// len(v): code points of a string; 0 for undefined; TypeError otherwise.
int64_t Length(const Value& v);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_OPERATORS_H_
