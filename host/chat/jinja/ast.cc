#include "host/chat/jinja/ast.h"

namespace orcd::jinja {
namespace {

// Moves e's sub-expressions into out, leaving e without children.
void TakeChildren(Expr& e, std::vector<ExprPtr>& out) {
  auto take = [&](ExprPtr& p) {
    if (p) out.push_back(std::move(p));
  };
  for (ExprPtr& item : e.items) take(item);
  e.items.clear();
  take(e.a);
  take(e.b);
  take(e.c);
  take(e.d);
  for (ExprPtr& arg : e.call.args) take(arg);
  e.call.args.clear();
  for (auto& kw : e.call.kwargs) take(kw.second);
  e.call.kwargs.clear();
  take(e.call.star_args);
  take(e.call.star_kwargs);
  for (auto& cmp : e.comparisons) take(cmp.second);
  e.comparisons.clear();
}

}  // namespace

Expr::~Expr() {
  std::vector<ExprPtr> pending;
  TakeChildren(*this, pending);
  while (!pending.empty()) {
    ExprPtr e = std::move(pending.back());
    pending.pop_back();
    TakeChildren(*e, pending);
  }  // each e is destroyed childless: no recursion
}

}  // namespace orcd::jinja
