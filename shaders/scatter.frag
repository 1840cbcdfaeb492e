#version 430 core
flat in float scattered;
layout(location = 0) out vec4 value;
void main() { value = vec4(scattered); }
