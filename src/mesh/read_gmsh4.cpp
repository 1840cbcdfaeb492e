// Gmsh MSH 4.1 $Entities, $Nodes and $Elements, ASCII and binary. Binary sections have no text
// count line; integers are int32 ("int") or uint64 ("size_t", data size 8).
//   $Entities: numPoints numCurves numSurfaces numVolumes; points `tag x y z nphys phys...`;
//              others `tag minxyz maxxyz nphys phys... nbound bound...`
//   $PartitionedEntities: numPartitions, numGhosts + ghosts, then entities as above with
//              `parentDim parentTag numPartitions partitions...` after the tag
//   $Nodes:    numBlocks numNodes minTag maxTag; blocks `dim entity parametric n`, n tags,
//              n coordinate rows (x y z, plus u [v] when parametric)
//   $Elements: numBlocks numElements minTag maxTag; blocks `dim entity type n`, n rows `tag nodes...`
#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "mesh/gmsh_parser.hpp"
#include "util/error.hpp"

namespace ss::reader {

namespace {

// Text header lines of four integers (block counts etc.).
void read_ints(Line& line, std::int64_t* out, int n, const char* what) {
  for (int i = 0; i < n; ++i) out[i] = line.integer(what);
  line.finish(what);
}

void need_bytes(Cursor& cur, std::uint64_t count, std::uint64_t size, const std::string& what) {
  const std::uint64_t left = cur.source().data.size() - cur.offset();
  if (size != 0 && count > left / size) cur.fail_eof(std::to_string(count) + " " + what);
}

}  // namespace

// $Entities, or with `partitioned` $PartitionedEntities, whose records add the parent entity and
// the partitions after the tag, and which starts with the partition and ghost-entity counts.
// Elements take the entity's physical tag (a partition piece without one inherits its parent's);
// partition interfaces (surfaces whose parent is a volume) are not boundary and are skipped.
void GmshParser::read_entities(bool partitioned) {
  const char* end_marker = partitioned ? "$EndPartitionedEntities" : "$EndEntities";
  cur.set_section(partitioned ? "$PartitionedEntities" : "$Entities");
  const bool bin = src.binary;
  if (partitioned) {
    std::int64_t ghosts = 0;
    if (bin) {
      cur.bin<std::uint64_t>("number of partitions");
      ghosts = static_cast<std::int64_t>(cur.bin<std::uint64_t>("number of ghost entities"));
      need_bytes(cur, static_cast<std::uint64_t>(ghosts), 8, "ghost entities");
      std::vector<std::int32_t> g(2 * static_cast<std::size_t>(ghosts));
      cur.read_array(g.data(), g.size(), "ghost entities");
    } else {
      Line l1 = cur.next_line();
      l1.integer("number of partitions");
      l1.finish("the number of partitions");
      Line l2 = cur.next_line();
      ghosts = l2.integer("number of ghost entities");
      l2.finish("the number of ghost entities");
      for (std::int64_t i = 0; i < ghosts; ++i) {
        Line g = cur.next_line();
        g.integer("ghost entity tag");
        g.integer("ghost entity partition");
      }
    }
  }
  std::int64_t counts[4];
  if (bin) {
    std::uint64_t c[4];
    cur.read_array(c, 4, "entity counts");
    for (int d = 0; d < 4; ++d) counts[d] = static_cast<std::int64_t>(c[d]);
  } else {
    Line line = cur.next_line();
    read_ints(line, counts, 4, "entity counts");
  }
  for (int dim = 0; dim < 4; ++dim) {
    if (counts[dim] < 0) cur.fail_at(cur.offset(), "negative entity count");
    for (std::int64_t i = 0; i < counts[dim]; ++i) {
      std::vector<std::int64_t> phys;
      std::int64_t tag = 0, parent_dim = -1, parent_tag = 0;
      std::size_t at = cur.offset();
      if (bin) {
        tag = cur.bin<std::int32_t>("entity tag");
        if (partitioned) {
          parent_dim = cur.bin<std::int32_t>("parent dimension");
          parent_tag = cur.bin<std::int32_t>("parent tag");
          const auto nparts = cur.bin<std::uint64_t>("number of partitions");
          need_bytes(cur, nparts, 4, "partition tags");
          std::vector<std::int32_t> parts(nparts);
          cur.read_array(parts.data(), parts.size(), "partition tags");
        }
        double box[6];
        cur.read_array(box, dim == 0 ? 3 : 6, "entity coordinates");
        const auto np = cur.bin<std::uint64_t>("number of physical tags");
        need_bytes(cur, np, 4, "physical tags");
        std::vector<std::int32_t> p(np);
        cur.read_array(p.data(), p.size(), "physical tags");
        phys.assign(p.begin(), p.end());
        if (dim > 0) {
          const auto nb = cur.bin<std::uint64_t>("number of bounding entities");
          need_bytes(cur, nb, 4, "bounding entity tags");
          std::vector<std::int32_t> b(nb);
          cur.read_array(b.data(), b.size(), "bounding entity tags");
        }
      } else {
        Line line = cur.next_line();
        at = line.offset();
        if (line.starts_with("$")) line.fail(std::string(end_marker + 4) + " ends before all declared entities");
        tag = line.integer("entity tag");
        if (partitioned) {
          parent_dim = line.integer("parent dimension");
          parent_tag = line.integer("parent tag");
          const std::int64_t nparts = line.integer("number of partitions");
          for (std::int64_t k = 0; k < nparts; ++k) line.integer("partition tag");
        }
        for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) line.real("entity coordinate");
        const std::int64_t np = line.integer("number of physical tags");
        if (np < 0) line.fail("negative number of physical tags");
        for (std::int64_t k = 0; k < np; ++k) phys.push_back(line.group("physical tag"));
        if (dim > 0) {
          const std::int64_t nb = line.integer("number of bounding entities");
          for (std::int64_t k = 0; k < nb; ++k) line.integer("bounding entity tag");
        }
        line.finish("the entity");
      }
      if (dim < 2) continue;
      const std::pair<int, int> key{dim, static_cast<int>(tag)};
      if (partitioned && dim == 2 && parent_dim == 3) {
        interface_entities.insert(key);
        continue;
      }
      if (phys.empty()) {
        // A partition piece without physical tags inherits its parent's group.
        auto parent = entity_physical.find({static_cast<int>(parent_dim), static_cast<int>(parent_tag)});
        if (partitioned && parent_dim == dim && parent != entity_physical.end())
          entity_physical[key] = parent->second;
        continue;
      }
      if (phys.size() > 1 && !warned_multi_physical) {
        warned_multi_physical = true;
        std::cerr << "streamsolve: warning: " << src.where(at) << ": entity " << tag << " is in "
                  << phys.size() << " physical groups; its elements get the first (" << phys[0] << ")\n";
      }
      // A negative physical tag marks an entity used with reversed orientation; the group is |tag|
      // (tags are 32-bit, so |tag| is defined).
      entity_physical[key] = static_cast<int>(std::llabs(phys[0]));
    }
  }
  expect_end(end_marker, "the entities");
}

void GmshParser::read_nodes4() {
  cur.set_section("$Nodes");
  const bool bin = src.binary;
  std::int64_t head[4];  // blocks, nodes, min tag, max tag
  if (bin) {
    std::uint64_t h[4];
    cur.read_array(h, 4, "$Nodes header");
    for (int k = 0; k < 4; ++k) head[k] = static_cast<std::int64_t>(h[k]);
  } else {
    Line line = cur.next_line();
    read_ints(line, head, 4, "$Nodes header (blocks, nodes, min tag, max tag)");
  }
  const std::int64_t declared = head[1];
  if (head[0] < 0 || declared < 0) cur.fail_at(cur.offset(), "negative count in the $Nodes header");
  RawNodes raw;
  raw.reserve(static_cast<std::size_t>(std::min<std::int64_t>(declared, src.data.size() / 8 + 1)));
  std::vector<std::uint64_t> tag_buf;
  std::vector<double> xyz_buf;
  for (std::int64_t b = 0; b < head[0]; ++b) {
    std::int64_t dim = 0, parametric = 0, count = 0;
    std::size_t block_at = cur.offset();
    if (bin) {
      std::int32_t h[3];
      cur.read_array(h, 3, "node block header");
      dim = h[0];
      parametric = h[2];
      count = static_cast<std::int64_t>(cur.bin<std::uint64_t>("node block size"));
    } else {
      Line line = cur.next_line();
      block_at = line.offset();
      if (line.starts_with("$"))
        line.fail("$Nodes declares " + std::to_string(head[0]) + " blocks but has only " + std::to_string(b));
      dim = line.integer("entity dimension");
      line.integer("entity tag");
      parametric = line.integer("parametric flag");
      count = line.integer("number of nodes in block");
      line.finish("the node block header");
    }
    // (declared - held, not held + count: a count near 2^63 must not overflow)
    if (count < 0 || count > declared - static_cast<std::int64_t>(raw.tags.size()))
      cur.fail_at(block_at, "node block of " + std::to_string(count) + " nodes exceeds the " +
                                std::to_string(declared) + " nodes the $Nodes header declares");
    if (dim < 0 || dim > 3 || (parametric != 0 && parametric != 1))
      cur.fail_at(block_at, "bad node block header (dimension " + std::to_string(dim) + ", parametric " +
                                std::to_string(parametric) + ")");
    const std::size_t width = 3 + static_cast<std::size_t>(parametric ? dim : 0);
    const std::size_t n = static_cast<std::size_t>(count);
    const std::size_t first = raw.tags.size();
    if (bin) {
      need_bytes(cur, n, 8 * (1 + width), "nodes");
      const std::size_t tags_at = cur.offset();
      tag_buf.resize(n);
      cur.read_array(tag_buf.data(), n, "node tags");
      xyz_buf.resize(n * width);
      cur.read_array(xyz_buf.data(), xyz_buf.size(), "node coordinates");
      for (std::size_t i = 0; i < n; ++i) {
        raw.tags.push_back(static_cast<std::int64_t>(tag_buf[i]));
        raw.coords.push_back({xyz_buf[i * width], xyz_buf[i * width + 1], xyz_buf[i * width + 2]});
        raw.offsets.push_back(tags_at + 8 * i);
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        Line line = cur.next_line();
        if (line.starts_with("$")) line.fail("node block ends after " + std::to_string(i) + " of its " +
                                             std::to_string(n) + " node tags");
        raw.tags.push_back(line.integer("node tag"));
        line.finish("the node tag");
        raw.offsets.push_back(line.offset());
      }
      for (std::size_t i = 0; i < n; ++i) {
        Line line = cur.next_line();
        if (line.starts_with("$")) line.fail("node block ends after " + std::to_string(i) + " of its " +
                                             std::to_string(n) + " coordinate rows");
        glm::dvec3 x;
        x.x = line.real("x coordinate");
        x.y = line.real("y coordinate");
        x.z = line.real("z coordinate");
        for (std::size_t k = 3; k < width; ++k) line.real("parametric coordinate");
        line.finish("the node coordinates");
        raw.coords.push_back(x);
        raw.offsets[first + i] = line.offset();  // report coordinate problems on their own line
      }
    }
    for (std::size_t i = first; i < raw.tags.size(); ++i)
      if (raw.tags[i] < head[2] || raw.tags[i] > head[3])
        cur.fail_at(raw.offsets[i], "node id " + std::to_string(raw.tags[i]) +
                                        " out of range (the $Nodes header declares ids " + std::to_string(head[2]) +
                                        ".." + std::to_string(head[3]) + ")");
  }
  if (static_cast<std::int64_t>(raw.tags.size()) != declared)
    cur.fail_at(cur.offset(), "node blocks hold " + std::to_string(raw.tags.size()) + " nodes but the $Nodes header declares " +
                                  std::to_string(declared));
  set_nodes(std::move(raw));
  expect_end("$EndNodes", std::to_string(declared) + " nodes");
}

void GmshParser::read_elements4() {
  cur.set_section("$Elements");
  const bool bin = src.binary;
  std::int64_t head[4];  // blocks, elements, min tag, max tag
  if (bin) {
    std::uint64_t h[4];
    cur.read_array(h, 4, "$Elements header");
    for (int k = 0; k < 4; ++k) head[k] = static_cast<std::int64_t>(h[k]);
  } else {
    Line line = cur.next_line();
    read_ints(line, head, 4, "$Elements header (blocks, elements, min tag, max tag)");
  }
  const std::int64_t declared = head[1];
  if (head[0] < 0 || declared < 0) cur.fail_at(cur.offset(), "negative count in the $Elements header");
  std::int64_t total = 0;
  std::vector<std::uint64_t> buf;
  // Most elements of a volume mesh are tets: reserve for all declared elements (bounded by what
  // the file can hold, so a corrupt count cannot make us allocate wildly).
  const std::size_t expect = static_cast<std::size_t>(std::min<std::int64_t>(declared, src.data.size() / 24));
  mesh.tets.reserve(expect);
  mesh.tet_groups.reserve(expect);
  tet_tags.reserve(expect);
  std::int64_t tags[130];
  for (std::int64_t b = 0; b < head[0]; ++b) {
    std::int64_t dim = 0, entity = 0, type = 0, count = 0;
    std::size_t block_at = cur.offset();
    if (bin) {
      std::int32_t h[3];
      cur.read_array(h, 3, "element block header");
      dim = h[0];
      entity = h[1];
      type = h[2];
      count = static_cast<std::int64_t>(cur.bin<std::uint64_t>("element block size"));
    } else {
      Line line = cur.next_line();
      block_at = line.offset();
      if (line.starts_with("$"))
        line.fail("$Elements declares " + std::to_string(head[0]) + " blocks but has only " + std::to_string(b));
      dim = line.integer("entity dimension");
      entity = line.integer("entity tag");
      type = line.integer("element type");
      count = line.integer("number of elements in block");
      line.finish("the element block header");
    }
    const GmshType t = require_type(type, block_at);
    if (t.dim != dim)
      cur.fail_at(block_at, "element block of dimension " + std::to_string(dim) + " holds " + t.plural);
    if (count < 0 || count > declared - total)
      cur.fail_at(block_at, "element block of " + std::to_string(count) + " elements exceeds the " +
                                std::to_string(declared) + " elements the $Elements header declares");
    auto it = entity_physical.find({static_cast<int>(dim), static_cast<int>(entity)});
    const int physical = it == entity_physical.end() ? 0 : it->second;
    const bool keep = !interface_entities.count({static_cast<int>(dim), static_cast<int>(entity)});
    const std::size_t n = static_cast<std::size_t>(count);
    const std::size_t per = 1 + static_cast<std::size_t>(t.nodes);
    if (bin) {
      need_bytes(cur, n, 8 * per, std::string(t.plural));
      const std::size_t data_at = cur.offset();
      // In chunks of records through a small buffer (not a copy of the whole block).
      constexpr std::size_t kChunk = 4096;
      for (std::size_t e0 = 0; e0 < n; e0 += kChunk) {
        const std::size_t m = std::min(kChunk, n - e0);
        buf.resize(m * per);
        cur.read_array(buf.data(), buf.size(), "element records");
        if (!keep) continue;
        for (std::size_t e = 0; e < m; ++e) {
          const std::uint64_t* r = &buf[e * per];
          add_element(static_cast<int>(type), static_cast<std::int64_t>(r[0]), r + 1, physical,
                      data_at + (e0 + e) * per * 8);
        }
      }
    } else {
      for (std::size_t e = 0; e < n; ++e) {
        Line line = cur.next_line();
        if (line.starts_with("$")) line.fail("element block ends after " + std::to_string(e) + " of its " +
                                             std::to_string(n) + " elements");
        const std::int64_t id = line.integer("element tag");
        for (int k = 0; k < t.nodes; ++k) {
          if (line.at_end() && !line.cut())
            line.fail("element " + std::to_string(id) + " has " + std::to_string(k) + " node ids, " + t.plural +
                      " have " + std::to_string(t.nodes));
          tags[k] = line.integer("node id");
        }
        line.finish("the element's node ids");
        if (keep) add_element(static_cast<int>(type), id, tags, physical, line.offset());
      }
    }
    total += count;
  }
  if (total != declared)
    cur.fail_at(cur.offset(), "element blocks hold " + std::to_string(total) + " elements but the $Elements header declares " +
                                  std::to_string(declared));
  expect_end("$EndElements", std::to_string(declared) + " elements");
}

}  // namespace ss::reader
