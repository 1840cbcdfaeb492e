#include "kernels/kernel_source.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace ss {

LaunchPath parse_launch_path(const std::string& name) {
  if (name == "fragment") return LaunchPath::fragment;
  if (name == "compute") return LaunchPath::compute;
  SS_THROW("unknown launch path '" << name << "' (expected fragment or compute)");
}

const char* to_string(LaunchPath path) { return path == LaunchPath::compute ? "compute" : "fragment"; }

std::string KernelSpec::key() const {
  std::string key = kernel + "|p" + std::to_string(elements_per_texel) + "|o" + std::to_string(outputs) + "|" +
                    to_string(launch);
  if (launch == LaunchPath::compute) key += std::to_string(local_size_x) + "x" + std::to_string(local_size_y);
  if (vec4_output) key += "|v4";
  if (int_output) key += "|i";
  return key;
}

std::string shader_file(const std::string& name) {
  if (const char* dir = std::getenv("STREAMSOLVE_SHADER_DIR"); dir && *dir) {
    const std::string path = std::string(dir) + "/" + name;
    std::ifstream in(path);
    SS_REQUIRE(in, "shader '" << path << "' not found (STREAMSOLVE_SHADER_DIR is set)");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  const auto& table = embedded_shaders();
  auto it = table.find(name);
  SS_REQUIRE(it != table.end(), "no shader named '" << name << "' is embedded in this build");
  return it->second;
}

// A kernel file with its `#include "other.glsl"` lines replaced by that file (one level: helpers
// several kernels share, e.g. the CSR row loop of the heat operator).
std::string kernel_body(const std::string& name) {
  std::istringstream in(shader_file(name));
  std::ostringstream out;
  const std::string directive = "#include \"";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(directive, 0) == 0) {
      const size_t end = line.find('"', directive.size());
      SS_REQUIRE(end != std::string::npos, "shader '" << name << "': malformed #include line: " << line);
      out << "// ---- " << line.substr(directive.size(), end - directive.size()) << " ----\n"
          << shader_file(line.substr(directive.size(), end - directive.size())) << "\n";
    } else {
      out << line << "\n";
    }
  }
  return out.str();
}

// The helpers every kernel may use. Texel t holds elements [P·(t.y·W + t.x), +P) (P = elements per
// texel); in RGBA packing component c holds element P·index + c.
std::string prelude_source(const KernelSpec& spec) {
  const bool rgba = spec.elements_per_texel == 4;
  std::ostringstream s;
  s << "#version 430 core\n"
    << "// ---- streamsolve prelude for " << spec.key() << " (generated) ----\n"
    << "#define SS_ELEMENTS_PER_TEXEL " << spec.elements_per_texel << "\n"
    << "#define SS_VALUE " << (rgba ? "vec4" : "float") << "\n"
    << "#define SS_IVALUE " << (rgba ? "ivec4" : "int") << "\n"
    << "#define SS_BVALUE " << (rgba ? "bvec4" : "bool") << "\n"
    << "#define SS_OUT " << (spec.int_output ? "SS_IVALUE" : "SS_VALUE") << "  // what kernel() returns\n"
    << "uniform int ss_n;          // valid elements of the output field\n"
    << "uniform ivec2 ss_size;     // output texture size in texels\n"
    << "uniform ivec2 ss_in_size;  // reductions: input texture size\n"
    << "uniform int ss_in_n;       // reductions: valid elements of the input\n"
    << "const float ss_inf = uintBitsToFloat(0x7f800000u);\n"
    << "ivec2 ss_texel_of(int texel_index, int width) { return ivec2(texel_index % width, texel_index / width); }\n"
    << "int ss_texel_index(ivec2 t, int width) { return t.y * width + t.x; }\n";
  if (rgba) {
    s << "SS_VALUE ss_load(sampler2D s, ivec2 t) { return texelFetch(s, t, 0); }\n"
      << "SS_IVALUE ss_load_index(isampler2D s, ivec2 t) { return texelFetch(s, t, 0); }\n"
      << "float ss_element(sampler2D s, int i) {\n"
      << "  return texelFetch(s, ss_texel_of(i >> 2, textureSize(s, 0).x), 0)[i & 3];\n}\n"
      << "SS_VALUE ss_elements(sampler2D s, SS_IVALUE i) {\n"
      << "  return vec4(ss_element(s, i.x), ss_element(s, i.y), ss_element(s, i.z), ss_element(s, i.w));\n}\n"
      << "// which components of texel t hold one of the first n elements of a field of width w\n"
      << "SS_BVALUE ss_valid(ivec2 t, int width, int n) {\n"
      << "  return lessThan(ivec4(4 * ss_texel_index(t, width)) + ivec4(0, 1, 2, 3), ivec4(n));\n}\n"
      << "bool ss_any(SS_BVALUE b) { return any(b); }\n";
  } else {
    s << "SS_VALUE ss_load(sampler2D s, ivec2 t) { return texelFetch(s, t, 0).r; }\n"
      << "SS_IVALUE ss_load_index(isampler2D s, ivec2 t) { return texelFetch(s, t, 0).r; }\n"
      << "float ss_element(sampler2D s, int i) {\n"
      << "  return texelFetch(s, ss_texel_of(i, textureSize(s, 0).x), 0).r;\n}\n"
      << "SS_VALUE ss_elements(sampler2D s, SS_IVALUE i) { return ss_element(s, i); }\n"
      << "SS_BVALUE ss_valid(ivec2 t, int width, int n) { return ss_texel_index(t, width) < n; }\n"
      << "bool ss_any(SS_BVALUE b) { return b; }\n";
  }
  s << "// v where the output element exists, 0 in padding (padding always holds the sum identity)\n"
    << "SS_VALUE ss_mask(ivec2 t, SS_VALUE v) { return mix(SS_VALUE(0.0), v, ss_valid(t, ss_size.x, ss_n)); }\n"
    << "SS_IVALUE ss_mask(ivec2 t, SS_IVALUE v) { return v * SS_IVALUE(ss_valid(t, ss_size.x, ss_n)); }\n"
    << "// 1 where a value is NaN or ±inf (exponent bits all set), else 0\n"
    << "vec4 ss_nonfinite4(vec4 v) { return vec4(equal(floatBitsToUint(v) & 0x7f800000u, uvec4(0x7f800000u))); }\n"
    << "// ---- reductions ----\n"
    << "// A pass folds f×f input texels into one value at texel t of the grid ss_size (f = ss_fold, 2, 4\n"
    << "// or 8; grid = ceil(input size / f): the output, or the invocations of a work-group reduction).\n"
    << "// Kernels read the sources as `packs` of four values, q < ss_packs(),\n"
    << "// combine them in a vec4 and collapse it to SS_VALUE at the end. Sources outside the input or\n"
    << "// past its ss_in_n elements read as `identity`.\n"
    << "uniform int ss_fold;\n"
    << "bool ss_input_valid(ivec2 src) {\n"
    << "  return all(lessThan(src, ss_in_size)) && ss_texel_index(src, ss_in_size.x) * SS_ELEMENTS_PER_TEXEL < ss_in_n;\n}\n";
  if (rgba) {
    s << "// RGBA32F: the thesis' quarter method (§4.2): output texel t combines the input texels\n"
      << "// t + (i, j)·out_size, i, j < f; a pack is one texel (four consecutive elements).\n"
      << "int ss_packs() { return ss_fold * ss_fold; }\n"
      << "vec4 ss_pack(sampler2D s, ivec2 t, int q, float identity) {\n"
      << "  ivec2 src = t + ivec2(q % ss_fold, q / ss_fold) * ss_size;\n"
      << "  vec4 v = texelFetch(s, min(src, ss_in_size - 1), 0);\n"
      << "  bool inside = all(lessThan(src, ss_in_size));\n"
      << "  return inside ? mix(vec4(identity), v, ss_valid(src, ss_in_size.x, ss_in_n)) : vec4(identity);\n}\n"
      << "SS_VALUE ss_collapse_sum(vec4 v) { return v; }\n"
      << "SS_VALUE ss_collapse_min(vec4 v) { return v; }\n"
      << "SS_VALUE ss_collapse_max(vec4 v) { return v; }\n";
  } else {
    s << "// R32F: local blocks (thesis §4.1, Fig. 4.3a): output texel t combines the f×f block at f·t,\n"
      << "// read 2×2 texels at a time with one textureGather (a pack), so a pass issues a quarter of\n"
      << "// the fetches of one texelFetch per element.\n"
      << "int ss_packs() { return (ss_fold / 2) * (ss_fold / 2); }\n"
      << "vec4 ss_pack(sampler2D s, ivec2 t, int q, float identity) {\n"
      << "  int half_fold = ss_fold / 2;\n"
      << "  ivec2 base = t * ss_fold + 2 * ivec2(q % half_fold, q / half_fold);\n"
      << "  // The gather footprint at the corner shared by texels base .. base + (1, 1); its components\n"
      << "  // are the texels at offsets (0,1), (1,1), (1,0), (0,0).\n"
      << "  vec4 v = textureGather(s, (vec2(base) + 1.0) / vec2(ss_in_size), 0);\n"
      << "  bvec4 ok = bvec4(ss_input_valid(base + ivec2(0, 1)), ss_input_valid(base + ivec2(1, 1)),\n"
      << "                   ss_input_valid(base + ivec2(1, 0)), ss_input_valid(base));\n"
      << "  return mix(vec4(identity), v, ok);\n}\n"
      << "SS_VALUE ss_collapse_sum(vec4 v) { return (v.x + v.y) + (v.z + v.w); }\n"
      << "SS_VALUE ss_collapse_min(vec4 v) { return min(min(v.x, v.y), min(v.z, v.w)); }\n"
      << "SS_VALUE ss_collapse_max(vec4 v) { return max(max(v.x, v.y), max(v.z, v.w)); }\n";
  }
  s << "// ---- mesh tables ----\n"
    << "// element i of an integer field (CSR lists, any packing of this program)\n";
  if (rgba) {
    s << "int ss_index_element(isampler2D s, int i) {\n"
      << "  return texelFetch(s, ss_texel_of(i >> 2, textureSize(s, 0).x), 0)[i & 3];\n}\n";
  } else {
    s << "int ss_index_element(isampler2D s, int i) {\n"
      << "  return texelFetch(s, ss_texel_of(i, textureSize(s, 0).x), 0).r;\n}\n";
  }
  s << "// Signed index encoding (operators/mesh_operator_tables.hpp): v >= 0 is entity v with sign +1,\n"
    << "// v < 0 is entity ~v = -1 - v with sign -1.\n"
    << "SS_IVALUE ss_signed_index(SS_IVALUE v) { return v ^ (v >> 31); }\n"
    << "SS_VALUE ss_index_sign(SS_IVALUE v) { return SS_VALUE((v >> 31) * 2 + 1); }\n"
    << "int ss_signed_index1(int v) { return v ^ (v >> 31); }\n"
    << "float ss_index_sign1(int v) { return float((v >> 31) * 2 + 1); }\n";
  // More element access for mesh tables (any field length, either packing; uses ss_index_element above):
  //   ss_quad(s, q)           elements 4q .. 4q+3 of a float field (one fetch in RGBA packing)
  //   ss_index_quad(s, q)     the same for an index field (e.g. the four nodes of cell q)
  //   ss_first_element(t)     the output element held by component 0 of output texel t
  //   ss_vec4(v) / ss_from_vec4(v)   SS_VALUE <-> vec4 (R32F: component 0)
  s << "int ss_first_element(ivec2 t) { return ss_texel_index(t, ss_size.x) * SS_ELEMENTS_PER_TEXEL; }\n";
  if (rgba) {
    s << "vec4 ss_quad(sampler2D s, int q) { return texelFetch(s, ss_texel_of(q, textureSize(s, 0).x), 0); }\n"
      << "ivec4 ss_index_quad(isampler2D s, int q) { return texelFetch(s, ss_texel_of(q, textureSize(s, 0).x), 0); }\n"
      << "vec4 ss_vec4(SS_VALUE v) { return v; }\n"
      << "SS_VALUE ss_from_vec4(vec4 v) { return v; }\n";
  } else {
    s << "vec4 ss_quad(sampler2D s, int q) {\n"
      << "  return vec4(ss_element(s, 4 * q), ss_element(s, 4 * q + 1), ss_element(s, 4 * q + 2), ss_element(s, 4 * q + 3));\n}\n"
      << "ivec4 ss_index_quad(isampler2D s, int q) {\n"
      << "  return ivec4(ss_index_element(s, 4 * q), ss_index_element(s, 4 * q + 1), ss_index_element(s, 4 * q + 2),\n"
      << "               ss_index_element(s, 4 * q + 3));\n}\n"
      << "vec4 ss_vec4(SS_VALUE v) { return vec4(v, 0.0, 0.0, 0.0); }\n"
      << "SS_VALUE ss_from_vec4(vec4 v) { return v.x; }\n";
  }
  s << "// ---- kernel " << spec.kernel << " ----\n";
  return s.str();
}

// Fragment launch: one fragment per output texel, at gl_FragCoord (texel centre).
static std::string fragment_epilogue(const KernelSpec& spec) {
  std::ostringstream s;
  s << "\n// ---- fragment launch (generated) ----\n";
  if (spec.vec4_output) {
    s << "layout(location = 0) out vec4 ss_out0;\n"
      << "void main() { ss_out0 = kernel(ivec2(gl_FragCoord.xy)); }\n";
    return s.str();
  }
  for (int k = 0; k < spec.outputs; ++k) s << "layout(location = " << k << ") out SS_OUT ss_out" << k << ";\n";
  s << "void main() {\n  ivec2 t = ivec2(gl_FragCoord.xy);\n";
  if (spec.outputs == 1) {
    s << "  ss_out0 = ss_mask(t, kernel(t));\n";
  } else {
    for (int k = 0; k < spec.outputs; ++k) s << "  SS_OUT v" << k << ";\n";
    s << "  kernel(t";
    for (int k = 0; k < spec.outputs; ++k) s << ", v" << k;
    s << ");\n";
    for (int k = 0; k < spec.outputs; ++k) s << "  ss_out" << k << " = ss_mask(t, v" << k << ");\n";
  }
  s << "}\n";
  return s.str();
}

// Compute launch: one invocation per output texel at gl_GlobalInvocationID.xy; the work groups
// cover the output (ceil(W/lx) × ceil(H/ly)), invocations past its edge do nothing. Output k is
// image unit k (Launcher::dispatch binds it), stored with the same mask as the fragment path.
static std::string compute_epilogue(const KernelSpec& spec) {
  const bool four = spec.elements_per_texel == 4 || spec.vec4_output;
  const std::string format = std::string(four ? "rgba32" : "r32") + (spec.int_output ? "i" : "f");
  const char* image = spec.int_output ? "iimage2D" : "image2D";
  const char* store = spec.int_output ? "ivec4" : "vec4";
  std::ostringstream s;
  s << "\n// ---- compute launch (generated) ----\n"
    << "layout(local_size_x = " << spec.local_size_x << ", local_size_y = " << spec.local_size_y << ") in;\n";
  for (int k = 0; k < spec.outputs; ++k)
    s << "layout(" << format << ", binding = " << k << ") writeonly uniform " << image << " ss_image" << k << ";\n";
  s << "void main() {\n  ivec2 t = ivec2(gl_GlobalInvocationID.xy);\n"
    << "  if (any(greaterThanEqual(t, ss_size))) return;\n";
  if (spec.vec4_output) {
    s << "  imageStore(ss_image0, t, kernel(t));\n";
  } else if (spec.outputs == 1) {
    s << "  imageStore(ss_image0, t, " << store << "(ss_mask(t, kernel(t))));\n";
  } else {
    for (int k = 0; k < spec.outputs; ++k) s << "  SS_OUT v" << k << ";\n";
    s << "  kernel(t";
    for (int k = 0; k < spec.outputs; ++k) s << ", v" << k;
    s << ");\n";
    for (int k = 0; k < spec.outputs; ++k)
      s << "  imageStore(ss_image" << k << ", t, " << store << "(ss_mask(t, v" << k << ")));\n";
  }
  s << "}\n";
  return s.str();
}

// Compute launch of a reduction pass (spec.group_reduce): invocation t of the grid ss_size computes
// kernel(t) (the identity outside the grid) into shared memory; then the group's first K invocations
// (K = ceil(√N) of its N) each combine K consecutive values, and the first invocation combines
// those K and stores the result at the group's texel. Two barriers, not log₂N: each one suspends
// every invocation on a software rasterizer.
static std::string group_reduce_epilogue(const KernelSpec& spec) {
  SS_REQUIRE(spec.outputs == 1 && !spec.int_output, "kernel " << spec.kernel << ": a work-group reduction writes one float output");
  const bool four = spec.elements_per_texel == 4 || spec.vec4_output;
  const char* type = four ? "vec4" : "float";
  const int invocations = spec.local_size_x * spec.local_size_y;
  int chunk = 1;
  while (chunk * chunk < invocations) ++chunk;
  const char* identity = spec.group_reduce == GroupReduce::sum ? "0.0" : spec.group_reduce == GroupReduce::min ? "ss_inf" : "-ss_inf";
  const char* combine = spec.group_reduce == GroupReduce::sum ? "a + b" : spec.group_reduce == GroupReduce::min ? "min(a, b)" : "max(a, b)";
  std::ostringstream s;
  s << "\n// ---- compute launch, reduced over the work group (generated) ----\n"
    << "layout(local_size_x = " << spec.local_size_x << ", local_size_y = " << spec.local_size_y << ") in;\n"
    << "layout(" << (four ? "rgba32f" : "r32f") << ", binding = 0) writeonly uniform image2D ss_image0;\n"
    << "const uint ss_group_n = " << invocations << "u, ss_chunk = " << chunk << "u;\n"
    << "shared " << type << " ss_group[ss_group_n];\n"
    << "shared " << type << " ss_chunks[ss_chunk];\n"
    << type << " ss_group_combine(" << type << " a, " << type << " b) { return " << combine << "; }\n"
    << "void main() {\n"
    << "  ivec2 t = ivec2(gl_GlobalInvocationID.xy);\n"
    << "  uint i = gl_LocalInvocationIndex;\n"
    << "  ss_group[i] = any(greaterThanEqual(t, ss_size)) ? " << type << "(" << identity << ") : kernel(t);\n"
    << "  memoryBarrierShared();\n  barrier();\n"
    << "  if (i < ss_chunk) {\n"
    << "    " << type << " v = " << type << "(" << identity << ");\n"
    << "    for (uint k = i * ss_chunk; k < min((i + 1u) * ss_chunk, ss_group_n); ++k) v = ss_group_combine(v, ss_group[k]);\n"
    << "    ss_chunks[i] = v;\n"
    << "  }\n"
    << "  memoryBarrierShared();\n  barrier();\n"
    << "  if (i == 0u) {\n"
    << "    " << type << " v = ss_chunks[0];\n"
    << "    for (uint k = 1u; k < ss_chunk; ++k) v = ss_group_combine(v, ss_chunks[k]);\n"
    << "    imageStore(ss_image0, ivec2(gl_WorkGroupID.xy), vec4(v));\n"
    << "  }\n"
    << "}\n";
  return s.str();
}

std::string fragment_program_source(const KernelSpec& spec) {
  SS_REQUIRE(spec.group_reduce == GroupReduce::none, "kernel " << spec.kernel << ": work-group reductions run on the compute path only");
  return prelude_source(spec) + kernel_body(spec.kernel) + fragment_epilogue(spec);
}

std::string compute_program_source(const KernelSpec& spec) {
  return prelude_source(spec) + kernel_body(spec.kernel) +
         (spec.group_reduce == GroupReduce::none ? compute_epilogue(spec) : group_reduce_epilogue(spec));
}

// One triangle that covers the viewport: (-1,-1), (3,-1), (-1,3); no vertex buffer needed.
std::string fullscreen_vertex_source() {
  return "#version 430 core\n"
         "void main() {\n"
         "  vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));\n"
         "  gl_Position = vec4(p, 0.0, 1.0);\n"
         "}\n";
}

}  // namespace ss
