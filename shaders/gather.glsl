// z[i] = source[index[i]]
uniform sampler2D source;
uniform isampler2D index;
SS_VALUE kernel(ivec2 texel) { return ss_elements(source, ss_load_index(index, texel)); }
