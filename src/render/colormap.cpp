#include "render/colormap.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "util/error.hpp"

namespace ss {
namespace {

// matplotlib's viridis (van der Walt & Smith, CC0): every 8th entry of its 256-entry table, and
// the last. Linear interpolation between these stops stays within 1/255 of the full table.
const std::vector<glm::vec3> kViridis = {
    {0.267004f, 0.004874f, 0.329415f}, {0.277018f, 0.050344f, 0.375715f}, {0.282327f, 0.094955f, 0.417331f},
    {0.282884f, 0.135920f, 0.453427f}, {0.278826f, 0.175490f, 0.483397f}, {0.270595f, 0.214069f, 0.507052f},
    {0.258965f, 0.251537f, 0.524736f}, {0.244972f, 0.287675f, 0.537260f}, {0.229739f, 0.322361f, 0.545706f},
    {0.214298f, 0.355619f, 0.551184f}, {0.199430f, 0.387607f, 0.554642f}, {0.185556f, 0.418570f, 0.556753f},
    {0.172719f, 0.448791f, 0.557885f}, {0.160665f, 0.478540f, 0.558115f}, {0.149039f, 0.508051f, 0.557250f},
    {0.137770f, 0.537492f, 0.554906f}, {0.127568f, 0.566949f, 0.550556f}, {0.120565f, 0.596422f, 0.543611f},
    {0.120638f, 0.625828f, 0.533488f}, {0.132268f, 0.655014f, 0.519661f}, {0.157851f, 0.683765f, 0.501686f},
    {0.196571f, 0.711827f, 0.479221f}, {0.246070f, 0.738910f, 0.452024f}, {0.304148f, 0.764704f, 0.419943f},
    {0.369214f, 0.788888f, 0.382914f}, {0.440137f, 0.811138f, 0.340967f}, {0.515992f, 0.831158f, 0.294279f},
    {0.595839f, 0.848717f, 0.243329f}, {0.678489f, 0.863742f, 0.189503f}, {0.762373f, 0.876424f, 0.137064f},
    {0.845561f, 0.887322f, 0.099702f}, {0.926106f, 0.897330f, 0.104071f}, {0.993248f, 0.906157f, 0.143936f},
};

// Moreland's diverging cool-to-warm map ("Diverging Color Maps for Scientific Visualization",
// 2009), his published 33-stop table.
const std::vector<glm::vec3> kCoolWarm = {
    {0.229806f, 0.298718f, 0.753683f}, {0.266234f, 0.353095f, 0.801467f}, {0.303869f, 0.406535f, 0.844959f},
    {0.342804f, 0.458758f, 0.883726f}, {0.383013f, 0.509419f, 0.917388f}, {0.424370f, 0.558148f, 0.945620f},
    {0.466667f, 0.604563f, 0.968155f}, {0.509635f, 0.648281f, 0.984788f}, {0.552953f, 0.688929f, 0.995376f},
    {0.596262f, 0.726149f, 0.999836f}, {0.639176f, 0.759600f, 0.998151f}, {0.681291f, 0.788965f, 0.990363f},
    {0.722193f, 0.813953f, 0.976575f}, {0.761465f, 0.834303f, 0.956945f}, {0.798692f, 0.849786f, 0.931689f},
    {0.833467f, 0.860208f, 0.901069f}, {0.865395f, 0.865410f, 0.865396f}, {0.897787f, 0.848937f, 0.820881f},
    {0.924128f, 0.827385f, 0.774508f}, {0.944469f, 0.800927f, 0.726736f}, {0.958853f, 0.769768f, 0.678008f},
    {0.967328f, 0.734133f, 0.628752f}, {0.969954f, 0.694267f, 0.579375f}, {0.966811f, 0.650421f, 0.530264f},
    {0.958003f, 0.602842f, 0.481776f}, {0.943661f, 0.551751f, 0.434244f}, {0.923945f, 0.497309f, 0.387970f},
    {0.899046f, 0.439559f, 0.343230f}, {0.869187f, 0.378313f, 0.300267f}, {0.834621f, 0.312874f, 0.259301f},
    {0.795632f, 0.241284f, 0.220526f}, {0.752535f, 0.157246f, 0.184115f}, {0.705673f, 0.015556f, 0.150233f},
};

const std::map<std::string, const std::vector<glm::vec3>*>& maps() {
  static const std::map<std::string, const std::vector<glm::vec3>*> table = {{"viridis", &kViridis},
                                                                             {"coolwarm", &kCoolWarm}};
  return table;
}

}  // namespace

std::vector<std::string> colormap_names() {
  std::vector<std::string> names;
  for (const auto& entry : maps()) names.push_back(entry.first);
  return names;
}

const std::vector<glm::vec3>& colormap_stops(const std::string& name) {
  auto it = maps().find(name);
  if (it == maps().end()) {
    std::string valid;
    for (const auto& n : colormap_names()) valid += (valid.empty() ? "" : ", ") + n;
    SS_THROW("unknown colour map '" << name << "' (valid: " << valid << ")");
  }
  return *it->second;
}

glm::vec3 colormap_colour(const std::string& name, double t) {
  const auto& stops = colormap_stops(name);
  if (!std::isfinite(t)) t = 0;
  const double x = std::clamp(t, 0.0, 1.0) * double(stops.size() - 1);
  const std::size_t i = std::min(std::size_t(x), stops.size() - 2);
  const float f = float(x - double(i));
  return stops[i] * (1.0f - f) + stops[i + 1] * f;
}

}  // namespace ss
