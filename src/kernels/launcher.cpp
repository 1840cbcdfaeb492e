#include "kernels/launcher.hpp"

#include "gl/check.hpp"
#include "util/error.hpp"

namespace ss {

Launcher::Launcher() : empty_vao_(make_vertex_array()), framebuffer_(make_framebuffer()) {}

void Launcher::attach(const std::vector<Texture*>& outputs) {
  SS_REQUIRE(!outputs.empty() && outputs.size() <= 4, "a kernel writes 1 to 4 outputs");
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_.id());
  GLenum buffers[4];
  for (size_t k = 0; k < 4; ++k) {
    const GLuint id = k < outputs.size() ? outputs[k]->id() : 0;
    glFramebufferTexture2D(GL_FRAMEBUFFER, GLenum(GL_COLOR_ATTACHMENT0 + k), GL_TEXTURE_2D, id, 0);
    buffers[k] = GLenum(GL_COLOR_ATTACHMENT0 + k);
  }
  glDrawBuffers(GLsizei(outputs.size()), buffers);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  SS_REQUIRE(status == GL_FRAMEBUFFER_COMPLETE, "framebuffer incomplete (status 0x" << std::hex << status << ") for "
                                                << outputs.size() << " " << to_string(outputs[0]->format()) << " output(s)");
  glViewport(0, 0, outputs[0]->width(), outputs[0]->height());
}

void Launcher::read(Texture& texture, void* data) {
  attach({&texture});
  ++reads_;
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  const bool four = channels(texture.format()) == 4;
  const bool integer = is_integer(texture.format());
  glReadPixels(0, 0, texture.width(), texture.height(),
               integer ? (four ? GL_RGBA_INTEGER : GL_RED_INTEGER) : (four ? GL_RGBA : GL_RED),
               integer ? GL_INT : GL_FLOAT, data);
  SS_GL_CHECK("reading back a " + std::to_string(texture.width()) + "x" + std::to_string(texture.height()) + " texture");
}

void Launcher::bind(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
                    std::int64_t valid_elements) {
  SS_REQUIRE(!outputs.empty() && outputs.size() <= 4, "kernel " << program.label() << ": writes 1 to 4 outputs");
  for (const Texture* out : outputs)
    SS_REQUIRE(out->width() == outputs[0]->width() && out->height() == outputs[0]->height(),
               "kernel " << program.label() << ": outputs differ in size");
  glUseProgram(program.id());
  for (size_t unit = 0; unit < inputs.size(); ++unit) {
    glActiveTexture(GLenum(GL_TEXTURE0 + unit));
    glBindTexture(GL_TEXTURE_2D, inputs[unit].texture->id());
    glUniform1i(program.uniform(inputs[unit].uniform), GLint(unit));
  }
  glUniform1i(program.uniform("ss_n"), GLint(valid_elements));
  glUniform2i(program.uniform("ss_size"), outputs[0]->width(), outputs[0]->height());
}

void Launcher::run(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
                   std::int64_t valid_elements) {
  if (program.is_compute()) dispatch(program, inputs, outputs, valid_elements);
  else draw(program, inputs, outputs, valid_elements);
}

void Launcher::draw(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
                    std::int64_t valid_elements) {
  SS_REQUIRE(!program.is_compute(), "kernel " << program.label() << " is a compute program; it cannot be drawn");
  bind(program, inputs, outputs, valid_elements);
  attach(outputs);
  glBindVertexArray(empty_vao_.id());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  ++passes_;
  glBindVertexArray(0);
  draws_since_dispatch_ = true;
  SS_GL_CHECK("kernel " + program.label());
}

void Launcher::dispatch(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
                        std::int64_t valid_elements) {
  SS_REQUIRE(program.is_compute(), "kernel " << program.label() << " is a fragment program; it cannot be dispatched");
  bind(program, inputs, outputs, valid_elements);
  const glm::ivec2 group = program.work_group_size();
  dispatch_groups(program, outputs, GLuint((outputs[0]->width() + group.x - 1) / group.x),
                  GLuint((outputs[0]->height() + group.y - 1) / group.y));
}

void Launcher::dispatch_reduction(Program& program, const std::vector<KernelInput>& inputs, Texture& output,
                                  glm::ivec2 grid) {
  SS_REQUIRE(program.is_compute(), "kernel " << program.label() << " is a fragment program; it cannot be dispatched");
  const glm::ivec2 group = program.work_group_size();
  SS_REQUIRE(output.width() == (grid.x + group.x - 1) / group.x && output.height() == (grid.y + group.y - 1) / group.y,
             "kernel " << program.label() << ": a " << output.width() << "x" << output.height()
                       << " output does not hold one texel per work group of a " << grid.x << "x" << grid.y << " grid");
  bind(program, inputs, {&output}, std::int64_t(grid.x) * grid.y * channels(output.format()));
  glUniform2i(program.uniform("ss_size"), grid.x, grid.y);
  dispatch_groups(program, {&output}, GLuint(output.width()), GLuint(output.height()));
}

void Launcher::dispatch_groups(Program& program, const std::vector<Texture*>& outputs, GLuint groups_x,
                               GLuint groups_y) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    const TexelFormat format = outputs[k]->format();
    const GLenum image_format = format == TexelFormat::rgba32f ? GL_RGBA32F
                                : format == TexelFormat::r32f  ? GL_R32F
                                : format == TexelFormat::rgba32i ? GL_RGBA32I
                                                                 : GL_R32I;
    glBindImageTexture(GLuint(k), outputs[k]->id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, image_format);
  }
  // Image stores are ordered after earlier work only by a barrier: the one behind the previous
  // dispatch covers kernels; draws since then (scatter, fragment kernels) need one here.
  if (draws_since_dispatch_) glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
  glDispatchCompute(groups_x, groups_y, 1);
  ++passes_;
  // Make the image stores visible to what may come next: texel fetches by later kernels, scatter
  // draws into the same texture, glReadPixels / glGetTexImage readbacks, texture updates, and
  // further image stores (which also wait here for this dispatch's texel fetches).
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT |
                  GL_PIXEL_BUFFER_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
  draws_since_dispatch_ = false;
  SS_GL_CHECK("kernel " + program.label());
}

}  // namespace ss
