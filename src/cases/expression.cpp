#include "cases/expression.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <muParser.h>

#include "util/error.hpp"

namespace ss {

// The parser and the variables it reads, together on the heap: muParser keeps pointers to the
// variables, so they must not move while the parser lives.
struct Expression::Compiled {
  double x = 0, y = 0, z = 0, t = 0;
  mu::Parser parser;
};

namespace {

constexpr const char* kVariables[] = {"x", "y", "z", "t"};

std::string shortest(double value) {
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return error == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

// The identifier that ends just before `pos` (spaces skipped), or "" when there is none.
std::string name_before(const std::string& text, size_t pos) {
  size_t end = std::min(pos, text.size());
  while (end > 0 && text[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '_')) --begin;
  if (begin == end || std::isdigit(static_cast<unsigned char>(text[begin]))) return "";
  return text.substr(begin, end - begin);
}

}  // namespace

Expression::Expression(double value) : text_(shortest(value)), constant_(value) {}

Expression::Expression(const std::string& text, const std::string& where) : text_(text) { compile(where); }

// Parses text_: checks the variables, evaluates once (muParser compiles to byte code on the first
// evaluation), and keeps the parser only when the value depends on a variable.
void Expression::compile(const std::string& where) {
  auto c = std::make_unique<Compiled>();
  try {
    c->parser.DefineVar("x", &c->x);
    c->parser.DefineVar("y", &c->y);
    c->parser.DefineVar("z", &c->z);
    c->parser.DefineVar("t", &c->t);
    // Debian's muParser 2.3.3 defines _pi as 3.141592653589 (12 digits); these are the doubles nearest π and e.
    c->parser.DefineConst("_pi", 3.14159265358979323846);
    c->parser.DefineConst("_e", 2.71828182845904523536);
    c->parser.SetExpr(text_);
    bool uses_variables = false;
    uses_time_ = false;
    for (const auto& [name, pointer] : c->parser.GetUsedVar()) {
      bool known = false;
      for (const char* v : kVariables) known = known || name == v;
      SS_REQUIRE(known, where << ": unknown variable '" << name << "' in \"" << text_ << "\" (the variables are x, y, z, t)");
      uses_variables = true;
      uses_time_ = uses_time_ || name == "t";
    }
    constant_ = c->parser.Eval();
    if (uses_variables) compiled_ = std::move(c);
    else compiled_.reset();
  } catch (const mu::Parser::exception_type& e) {
    // muParser reads an unknown function name as a variable followed by a stray parenthesis.
    if (e.GetCode() == mu::ecUNEXPECTED_PARENS) {
      const std::string name = name_before(text_, size_t(std::max(0, e.GetPos())));
      SS_REQUIRE(name.empty(), where << ": unknown function '" << name << "' in \"" << text_ << "\"");
    }
    SS_THROW(where << ": " << e.GetMsg() << " in \"" << text_ << "\"");
  }
}

Expression::Expression(const Expression& other)
    : text_(other.text_), constant_(other.constant_), uses_time_(other.uses_time_) {
  if (other.compiled_) compile("expression");  // the text compiled before: it compiles again
}

Expression& Expression::operator=(const Expression& other) {
  if (this != &other) *this = Expression(other);
  return *this;
}

Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;
Expression::~Expression() = default;

double Expression::operator()(double x, double y, double z, double t) const {
  if (!compiled_) return constant_;
  compiled_->x = x;
  compiled_->y = y;
  compiled_->z = z;
  compiled_->t = t;
  try {
    return compiled_->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    SS_THROW("expression \"" << text_ << "\": " << e.GetMsg());
  }
}

}  // namespace ss
