// Bearer-token checks: which routes need it, which headers pass, and the
// constant-time comparison.
#include "host/server/auth.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

RequestHead Request(const std::string& path, const std::string& authorization = "") {
  RequestHead h;
  h.method = "GET";
  h.path = path;
  if (!authorization.empty()) h.fields.emplace_back("authorization", authorization);
  return h;
}

TEST(Auth, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("secret-token", "secret-token"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret-tokem"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret-token2"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", ""));
  EXPECT_FALSE(ConstantTimeEquals("abcabc", "abc")) << "a repeated prefix is not a match";
}

TEST(Auth, OnlyTheHealthProbesAreOpen) {
  const std::string token = "s3cret";
  for (const char* open : {"/health", "/health/live", "/health/ready"}) {
    EXPECT_FALSE(CheckAuth(Request(open), token).has_value()) << open;
  }
  for (const char* closed : {"/metrics", "/execute", "/cancel", "/shutdown", "/v1/models", "/x"}) {
    const auto refusal = CheckAuth(Request(closed), token);
    ASSERT_TRUE(refusal.has_value()) << closed;
    EXPECT_EQ(refusal->status, 401);
    EXPECT_NE(refusal->body.find("UNAUTHORIZED"), std::string::npos);
    EXPECT_EQ(refusal->body.find(token), std::string::npos) << "the token is never echoed";
  }
  EXPECT_FALSE(CheckAuth(Request("/metrics"), "").has_value()) << "no token configured: open";
}

TEST(Auth, HeaderForms) {
  const std::string token = "s3cret";
  EXPECT_FALSE(CheckAuth(Request("/metrics", "Bearer s3cret"), token).has_value());
  EXPECT_FALSE(CheckAuth(Request("/metrics", "bearer s3cret"), token).has_value());
  EXPECT_TRUE(CheckAuth(Request("/metrics", "Bearer s3cre"), token).has_value());
  EXPECT_TRUE(CheckAuth(Request("/metrics", "Basic s3cret"), token).has_value());
  EXPECT_TRUE(CheckAuth(Request("/metrics", "s3cret"), token).has_value());
  EXPECT_TRUE(CheckAuth(Request("/metrics", "Bearer "), token).has_value());
}

}  // namespace
}  // namespace orcd
