// Unit cube [0,1]^3 with its six faces as named physical surfaces and a named volume.
// Physical ids: surfaces 1..6, volume 10 (distinct so that the names never clash).
SetFactory("OpenCASCADE");
If (!Exists(lc)) lc = 0.2; EndIf  // override: gmsh -setnumber lc <value>
Box(1) = {0, 0, 0, 1, 1, 1};
Mesh.CharacteristicLengthMax = lc;
eps = 1e-6;
Physical Surface("left", 1)   = Surface In BoundingBox{-eps, -eps, -eps, eps, 1+eps, 1+eps};
Physical Surface("right", 2)  = Surface In BoundingBox{1-eps, -eps, -eps, 1+eps, 1+eps, 1+eps};
Physical Surface("front", 3)  = Surface In BoundingBox{-eps, -eps, -eps, 1+eps, eps, 1+eps};
Physical Surface("back", 4)   = Surface In BoundingBox{-eps, 1-eps, -eps, 1+eps, 1+eps, 1+eps};
Physical Surface("bottom", 5) = Surface In BoundingBox{-eps, -eps, -eps, 1+eps, 1+eps, eps};
Physical Surface("top", 6)    = Surface In BoundingBox{-eps, -eps, 1-eps, 1+eps, 1+eps, 1+eps};
Physical Volume("domain", 10) = {1};
