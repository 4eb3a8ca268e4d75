// A JSON value written compactly (no whitespace, keys in the object's
// order, strings escaped as orcd escapes them): the form constrained output
// takes, and enum / const values compile to.
#ifndef ORCD_HOST_STRUCTURED_COMPACT_JSON_H_
#define ORCD_HOST_STRUCTURED_COMPACT_JSON_H_

#include <string>

#include <Poco/Dynamic/Var.h>

namespace orcd::structured {

std::string CompactJson(const Poco::Dynamic::Var& value);

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_COMPACT_JSON_H_
