// Rectangular channel along x: length 4, cross-section 1 x 0.5. Inlet at x = 0, outlet at x = 4.
SetFactory("OpenCASCADE");
If (!Exists(lc)) lc = 0.15; EndIf  // override: gmsh -setnumber lc <value>
L = 4; W = 1; H = 0.5;
Box(1) = {0, 0, 0, L, W, H};
Mesh.CharacteristicLengthMax = lc;
eps = 1e-6;
Physical Surface("inlet", 1)  = Surface In BoundingBox{-eps, -eps, -eps, eps, W+eps, H+eps};
Physical Surface("outlet", 2) = Surface In BoundingBox{L-eps, -eps, -eps, L+eps, W+eps, H+eps};
all() = Surface In BoundingBox{-eps, -eps, -eps, L+eps, W+eps, H+eps};
Physical Surface("walls", 3)  = {all()};
Physical Surface("walls", 3) -= {Surface In BoundingBox{-eps, -eps, -eps, eps, W+eps, H+eps}};
Physical Surface("walls", 3) -= {Surface In BoundingBox{L-eps, -eps, -eps, L+eps, W+eps, H+eps}};
Physical Volume("fluid", 10) = {1};
