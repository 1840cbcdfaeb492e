#include "app/matrix_market.hpp"

#include <charconv>
#include <cstring>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Appends text to a buffer that is flushed to the stream in large blocks (one write per ~4 MB).
class BlockWriter {
public:
  explicit BlockWriter(std::ostream& out) : out_(out) { buffer_.reserve(kBlock + 256); }
  ~BlockWriter() { flush(); }
  void put(const char* s, size_t n) {
    buffer_.append(s, n);
    if (buffer_.size() >= kBlock) flush();
  }
  void put(const std::string& s) { put(s.data(), s.size()); }
  void integer(std::int64_t v) {
    char b[24];
    const auto r = std::to_chars(b, b + sizeof b, v);
    put(b, size_t(r.ptr - b));
  }
  void real(double v) {
    char b[32];
    const auto r = std::to_chars(b, b + sizeof b, v);  // shortest round-trip form
    put(b, size_t(r.ptr - b));
  }
  void flush() {
    out_.write(buffer_.data(), std::streamsize(buffer_.size()));
    buffer_.clear();
  }

private:
  static constexpr size_t kBlock = size_t(4) << 20;
  std::ostream& out_;
  std::string buffer_;
};

void write_comments(BlockWriter& w, const std::vector<std::string>& comments) {
  for (const std::string& c : comments) {
    SS_REQUIRE(c.find('\n') == std::string::npos, "Matrix Market comment has a newline: " << c);
    w.put("% ");
    w.put(c);
    w.put("\n");
  }
}

}  // namespace

std::vector<double> LowerCsr::multiply(const std::vector<double>& x) const {
  SS_REQUIRE(std::int64_t(x.size()) == rows, "LowerCsr::multiply: vector of " << x.size() << " for " << rows << " rows");
  std::vector<double> y(size_t(rows), 0.0);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t k = offsets[size_t(i)]; k < offsets[size_t(i) + 1]; ++k) {
      const std::int64_t j = columns[size_t(k)];
      y[size_t(i)] += values[size_t(k)] * x[size_t(j)];
      if (j != i) y[size_t(j)] += values[size_t(k)] * x[size_t(i)];
    }
  }
  return y;
}

void write_matrix_market(const std::string& path, const LowerCsr& m, const std::vector<std::string>& comments) {
  SS_REQUIRE(std::int64_t(m.offsets.size()) == m.rows + 1, "LowerCsr: offsets do not match rows");
  AtomicFile file(path);
  {
    BlockWriter w(file.stream());
    w.put("%%MatrixMarket matrix coordinate real symmetric\n");
    write_comments(w, comments);
    w.integer(m.rows);
    w.put(" ", 1);
    w.integer(m.rows);
    w.put(" ", 1);
    w.integer(std::int64_t(m.values.size()));
    w.put("\n", 1);
    for (std::int64_t i = 0; i < m.rows; ++i) {
      for (std::int64_t k = m.offsets[size_t(i)]; k < m.offsets[size_t(i) + 1]; ++k) {
        SS_REQUIRE(m.columns[size_t(k)] <= i, "LowerCsr: entry above the diagonal in row " << i);
        w.integer(i + 1);
        w.put(" ", 1);
        w.integer(std::int64_t(m.columns[size_t(k)]) + 1);
        w.put(" ", 1);
        w.real(m.values[size_t(k)]);
        w.put("\n", 1);
      }
    }
  }
  file.commit();
}

void write_matrix_market_vector(const std::string& path, const std::vector<double>& values,
                                const std::vector<std::string>& comments) {
  AtomicFile file(path);
  {
    BlockWriter w(file.stream());
    w.put("%%MatrixMarket matrix array real general\n");
    write_comments(w, comments);
    w.integer(std::int64_t(values.size()));
    w.put(" 1\n", 3);
    for (double v : values) {
      w.real(v);
      w.put("\n", 1);
    }
  }
  file.commit();
}

}  // namespace ss
