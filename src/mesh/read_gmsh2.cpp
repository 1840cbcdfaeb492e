// Gmsh MSH 2.x $Nodes and $Elements, ASCII and binary.
//   ASCII nodes:     n, then n lines `id x y z`
//   binary nodes:    n (text line), then n records {int32 id; double x, y, z} (28 bytes, packed)
//   ASCII elements:  n, then n lines `id type ntags tag... node...` (first tag = physical)
//   binary elements: n (text line), then blocks {int32 type, count, ntags} followed by `count`
//                    records of int32 {id, tags[ntags], nodes[...]}
#include <algorithm>
#include <cstring>

#include "mesh/gmsh_parser.hpp"
#include "util/error.hpp"

namespace ss::reader {

namespace {

std::int64_t read_count(Cursor& cur, const char* what) {
  Line line = cur.next_line();
  const std::int64_t n = line.integer(what);
  line.finish(what);
  if (n < 0) line.fail(std::string("negative ") + what);
  return n;
}

}  // namespace

void GmshParser::read_nodes2() {
  cur.set_section("$Nodes");
  const std::int64_t n = read_count(cur, "number of nodes");
  RawNodes raw;
  raw.reserve(static_cast<std::size_t>(std::min<std::int64_t>(n, src.data.size() / 8 + 1)));
  if (src.binary) {
    constexpr std::size_t record = 4 + 3 * 8;
    if (static_cast<std::uint64_t>(n) > (src.data.size() - cur.offset()) / record)
      cur.fail_eof(std::to_string(n) + " node records of 28 bytes");
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t at = cur.offset();
      const auto id = cur.bin<std::int32_t>("node id");
      double x[3];
      cur.read_array(x, 3, "node coordinates");
      raw.tags.push_back(id);
      raw.coords.push_back({x[0], x[1], x[2]});
      raw.offsets.push_back(at);
    }
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      Line line = cur.next_line();
      if (line.starts_with("$"))
        line.fail("$Nodes declares " + std::to_string(n) + " nodes but has only " + std::to_string(i));
      raw.tags.push_back(line.integer("node id"));
      const double x = line.real("x coordinate");
      const double y = line.real("y coordinate");
      const double z = line.real("z coordinate");
      line.finish("the node coordinates");
      raw.coords.push_back({x, y, z});
      raw.offsets.push_back(line.offset());
    }
  }
  set_nodes(std::move(raw));
  expect_end("$EndNodes", std::to_string(n) + " nodes");
}

void GmshParser::read_elements2() {
  cur.set_section("$Elements");
  const std::int64_t n = read_count(cur, "number of elements");
  if (src.binary) {
    std::vector<std::int32_t> buf;
    std::int64_t done = 0;
    while (done < n) {
      const std::size_t at = cur.offset();
      std::int32_t head[3];
      cur.read_array(head, 3, "element block header");
      const GmshType t = require_type(head[0], at);
      if (head[1] <= 0 || head[1] > n - done)
        cur.fail_at(at, "element block of " + std::to_string(head[1]) + " elements, but only " +
                            std::to_string(n - done) + " of the declared " + std::to_string(n) + " remain");
      if (head[2] < 0 || head[2] > 64) cur.fail_at(at, "bad number of element tags " + std::to_string(head[2]));
      const std::size_t per = 1 + static_cast<std::size_t>(head[2]) + static_cast<std::size_t>(t.nodes);
      const std::size_t count = static_cast<std::size_t>(head[1]);
      if (count * per * 4 > src.data.size() - cur.offset())
        cur.fail_eof(std::to_string(count) + " elements of type " + std::to_string(head[0]));
      const std::size_t data_at = cur.offset();
      buf.resize(count * per);
      cur.read_array(buf.data(), buf.size(), "element records");
      for (std::size_t e = 0; e < count; ++e) {
        const std::int32_t* r = &buf[e * per];
        const int physical = head[2] > 0 ? r[1] : 0;
        add_element(head[0], r[0], r + 1 + head[2], physical, data_at + e * per * 4);
      }
      done += head[1];
    }
  } else {
    std::int64_t tags[130];
    for (std::int64_t i = 0; i < n; ++i) {
      Line line = cur.next_line();
      if (line.starts_with("$"))
        line.fail("$Elements declares " + std::to_string(n) + " elements but has only " + std::to_string(i));
      const std::int64_t id = line.integer("element id");
      const std::int64_t type = line.integer("element type");
      const GmshType t = require_type(type, line.offset());
      const std::int64_t ntags = line.integer("number of element tags");
      if (ntags < 0 || ntags > 64) line.fail("bad number of element tags " + std::to_string(ntags));
      int physical = 0;
      for (std::int64_t k = 0; k < ntags; ++k) {
        const std::int64_t tag = k == 0 ? line.group("physical tag") : line.integer("element tag");
        if (k == 0) physical = static_cast<int>(tag);
      }
      for (int k = 0; k < t.nodes; ++k) {
        if (line.at_end() && !line.cut())
          line.fail("element " + std::to_string(id) + " has " + std::to_string(k) + " node ids, " +
                    t.plural + " have " + std::to_string(t.nodes));
        tags[k] = line.integer("node id");
      }
      line.finish("the element's node ids");
      add_element(static_cast<int>(type), id, tags, physical, line.offset());
    }
  }
  expect_end("$EndElements", std::to_string(n) + " elements");
}

}  // namespace ss::reader
