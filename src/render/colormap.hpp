#pragma once
// Perceptual colour maps for scalar fields: a short table of stops per map, interpolated linearly
// in sRGB. The same stops feed the shaders (as a uniform array) and the CPU (tests, colour bar).
#include <string>
#include <vector>

#include <glm/vec3.hpp>

namespace ss {

// Evenly spaced stops (sRGB, 0..1) of a named map: "viridis" (default) or "coolwarm". Throws
// ss::Error naming the valid names for anything else.
const std::vector<glm::vec3>& colormap_stops(const std::string& name);
// The names colormap_stops() accepts, for messages and --help.
std::vector<std::string> colormap_names();
// Colour at t in [0, 1] (clamped), interpolated between the stops.
glm::vec3 colormap_colour(const std::string& name, double t);

}  // namespace ss
