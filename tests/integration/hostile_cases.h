// The hostile-request catalogue run against the real server: each case is
// the exact bytes a broken or malicious client sends and the documented
// answer (README "HTTP errors").
#ifndef ORCD_TESTS_INTEGRATION_HOSTILE_CASES_H_
#define ORCD_TESTS_INTEGRATION_HOSTILE_CASES_H_

#include <string>
#include <vector>

namespace orcd::testing {

struct HostileCase {
  std::string name;
  std::string request;        // sent as is
  std::vector<int> statuses;  // the final responses expected, in order
  std::string body_has;       // a substring of the last response's body ("" = any)
  bool closes = false;        // the server must end the connection afterwards
  std::string header;         // "name: value" the last response carries ("" = none checked)
};

// Header timeout and body timeout of the worker these cases expect: 0.5 s.
std::vector<HostileCase> HostileCases();

}  // namespace orcd::testing

#endif  // ORCD_TESTS_INTEGRATION_HOSTILE_CASES_H_
