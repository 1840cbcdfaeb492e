#pragma once
// A scalar field given in a case file: a plain number, or a formula in x, y, z (position) and t
// (time) parsed once by muParser and evaluated many times (at nodes, cell or face centroids).
//
//   Expression k = 2.5;                                  // constant
//   Expression T("20 + 80*sin(_pi*x)", "case.toml:12");  // compiled now; errors name "case.toml:12"
//   double v = T(x, y, z);                               // t defaults to 0
//
// Syntax (muParser): + - * / ^, comparisons, && ||, `c ? a : b`; functions sin cos tan asin acos atan
// atan2 sinh cosh tanh asinh acosh atanh exp ln log log2 log10 sqrt abs sign rint min max sum avg;
// constants _pi, _e; variables x, y, z, t only.
//
// Copies are independent (each owns its compiled parser and the variables that parser points at);
// one Expression is evaluated from one thread at a time.
#include <array>
#include <memory>
#include <string>
#include <utility>

#include <glm/vec3.hpp>

namespace ss {

class Expression {
public:
  Expression() : Expression(0.0) {}
  Expression(double value);  // NOLINT(google-explicit-constructor): a number is a constant expression
  // Compiles `text`; a syntax error or a variable other than x, y, z, t throws ss::Error
  // "<where>: <muParser's message or 'unknown variable'> in "<text>"".
  explicit Expression(const std::string& text, const std::string& where = "expression");
  Expression(const Expression& other);
  Expression& operator=(const Expression& other);
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;
  ~Expression();

  double operator()(double x, double y, double z, double t = 0.0) const;
  double operator()(const glm::dvec3& p, double t = 0.0) const { return (*this)(p.x, p.y, p.z, t); }

  bool uses_time() const { return uses_time_; }
  // No variable at all (a number, or a formula such as "2*_pi"): the value is known without a point.
  bool is_constant() const { return !compiled_; }
  // The text as written, or the number in its shortest exact form.
  std::string text() const { return text_; }

private:
  struct Compiled;
  void compile(const std::string& where);
  std::string text_;
  double constant_ = 0.0;
  bool uses_time_ = false;
  std::unique_ptr<Compiled> compiled_;  // null when constant
};

// A vector field: one Expression per component.
struct VectorExpression : std::array<Expression, 3> {
  VectorExpression() = default;
  VectorExpression(Expression x, Expression y, Expression z)
      : std::array<Expression, 3>{{std::move(x), std::move(y), std::move(z)}} {}
  VectorExpression(const glm::dvec3& v) : VectorExpression(v.x, v.y, v.z) {}  // NOLINT: constant vector

  glm::dvec3 operator()(double x, double y, double z, double t = 0.0) const {
    return {(*this)[0](x, y, z, t), (*this)[1](x, y, z, t), (*this)[2](x, y, z, t)};
  }
  glm::dvec3 operator()(const glm::dvec3& p, double t = 0.0) const { return (*this)(p.x, p.y, p.z, t); }
  bool uses_time() const { return (*this)[0].uses_time() || (*this)[1].uses_time() || (*this)[2].uses_time(); }
  bool is_constant() const { return (*this)[0].is_constant() && (*this)[1].is_constant() && (*this)[2].is_constant(); }
};

}  // namespace ss
