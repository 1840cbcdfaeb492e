// Expressions in case files (muParser): numbers and formulas in x, y, z, t; copies are independent;
// mistakes are one ss::Error naming the place given by the caller.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cases/expression.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

TEST(Expression, NumberIsConstant) {
  const Expression e = 2.5;
  EXPECT_TRUE(e.is_constant());
  EXPECT_FALSE(e.uses_time());
  EXPECT_EQ(e(1, 2, 3, 4), 2.5);
  EXPECT_EQ(e.text(), "2.5");
  EXPECT_EQ(Expression().text(), "0");
  EXPECT_EQ(Expression(0.1).text(), "0.1");  // shortest exact form
}

TEST(Expression, FormulaInPositionAndTime) {
  const Expression e("x + 2*y - z^2 + 10*t", "test");
  EXPECT_FALSE(e.is_constant());
  EXPECT_TRUE(e.uses_time());
  EXPECT_EQ(e.text(), "x + 2*y - z^2 + 10*t");
  EXPECT_DOUBLE_EQ(e(1, 2, 3), 1 + 4 - 9);
  EXPECT_DOUBLE_EQ(e(1, 2, 3, 0.5), 1 + 4 - 9 + 5);
  EXPECT_DOUBLE_EQ(e(glm::dvec3(1, 0, 0), 1.0), 11.0);
  EXPECT_FALSE(Expression("sin(_pi*x)", "test").uses_time());
}

TEST(Expression, FormulaWithoutVariablesIsConstant) {
  const Expression e("2*_pi + _e", "test");
  EXPECT_TRUE(e.is_constant());
  EXPECT_DOUBLE_EQ(e(0, 0, 0), 2 * M_PI + M_E);
  EXPECT_EQ(e.text(), "2*_pi + _e");
}

TEST(Expression, FunctionsAndOperators) {
  const double x = 0.3, y = -0.7, z = 2.0;
  const auto at = [&](const char* text) { return Expression(text, "test")(x, y, z); };
  EXPECT_DOUBLE_EQ(at("sin(x)*cos(y) + tan(x)"), std::sin(x) * std::cos(y) + std::tan(x));
  EXPECT_DOUBLE_EQ(at("exp(x) + ln(z) + log10(z) + log2(z) + sqrt(z)"),
                   std::exp(x) + std::log(z) + std::log10(z) + std::log2(z) + std::sqrt(z));
  EXPECT_DOUBLE_EQ(at("abs(y) + sign(y) + atan2(y, x)"), std::fabs(y) - 1 + std::atan2(y, x));
  EXPECT_DOUBLE_EQ(at("min(x, y, z) + max(x, y) + sum(x, y, z) + avg(x, z)"), y + x + (x + y + z) + (x + z) / 2);
  EXPECT_DOUBLE_EQ(at("x < 0.5 ? 1 : 2"), 1.0);
  EXPECT_DOUBLE_EQ(at("(x > 0 && y < 0) ? z^3 : 0"), 8.0);
  EXPECT_DOUBLE_EQ(at("1e-3*x"), 3e-4);
}

TEST(Expression, CopiesAreIndependent) {
  std::vector<Expression> list;
  {
    Expression a("x*y", "test");
    list.push_back(a);
    list.push_back(a);
    a = Expression("z", "test");
    list.push_back(std::move(a));
  }
  for (int k = 0; k < 20; ++k) list.push_back(list[size_t(k % 3)]);  // reallocations move and copy
  Expression assigned = 1.0;
  assigned = list[0];
  EXPECT_DOUBLE_EQ(list[0](2, 3, 4), 6.0);
  EXPECT_DOUBLE_EQ(list[1](5, 3, 4), 15.0);
  EXPECT_DOUBLE_EQ(list[2](2, 3, 4), 4.0);
  EXPECT_DOUBLE_EQ(list[22](1, 1, 7), 1.0);  // a copy of list[1]
  EXPECT_DOUBLE_EQ(assigned(3, 3, 0), 9.0);
  EXPECT_DOUBLE_EQ(list[0](2, 3, 4), 6.0);  // evaluating the others changed nothing here
}

TEST(Expression, VectorExpression) {
  const VectorExpression v(Expression(1.0), Expression("x*t", "test"), Expression("-y", "test"));
  const glm::dvec3 u = v(2, 3, 4, 0.5);
  EXPECT_EQ(u, glm::dvec3(1, 1, -3));
  EXPECT_TRUE(v.uses_time());
  EXPECT_FALSE(v.is_constant());
  const VectorExpression zero;
  EXPECT_TRUE(zero.is_constant());
  EXPECT_EQ(zero(1, 2, 3), glm::dvec3(0.0));
  const VectorExpression lid = glm::dvec3(1, 0, 0);
  EXPECT_EQ(lid(0, 0, 1), glm::dvec3(1, 0, 0));
}

void expect_error(const std::string& text, const std::string& expected) {
  try {
    Expression e(text, "case.toml:12: [[boundary]] value");
    FAIL() << text << ": expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("case.toml:12: [[boundary]] value: ", 0), 0u) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
    EXPECT_NE(what.find("\"" + text + "\""), std::string::npos) << "quotes the text: " << what;
  }
}

TEST(Expression, ErrorsNameTheCallersPlace) {
  expect_error("x +", "Unexpected end of expression");
  expect_error("sin(x", "Missing parenthesis");
  expect_error("3 3", "Unexpected value");
  expect_error("w + 1", "unknown variable 'w'");
  expect_error("x*velocity", "unknown variable 'velocity'");
  expect_error("fmod(x, 2)", "unknown function 'fmod'");  // not a muParser function
  expect_error("x (y)", "unknown function 'x'");
  expect_error("2 (y)", "Unexpected parenthesis");
  expect_error("", "Expression is empty");
}

}  // namespace
}  // namespace ss
