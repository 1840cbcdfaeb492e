// Lid-driven cavity: unit box, the top face (z = 1) is the moving lid, the other five are walls.
SetFactory("OpenCASCADE");
If (!Exists(lc)) lc = 0.1; EndIf  // override: gmsh -setnumber lc <value>
Box(1) = {0, 0, 0, 1, 1, 1};
Mesh.CharacteristicLengthMax = lc;
eps = 1e-6;
lid() = Surface In BoundingBox{-eps, -eps, 1-eps, 1+eps, 1+eps, 1+eps};
all() = Surface In BoundingBox{-eps, -eps, -eps, 1+eps, 1+eps, 1+eps};
Physical Surface("lid", 1) = {lid()};
Physical Surface("walls", 2) = {all()};
Physical Surface("walls", 2) -= {lid()};
Physical Volume("fluid", 10) = {1};
