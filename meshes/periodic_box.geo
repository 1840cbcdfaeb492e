// A box [x0, x0 + L]^3 whose opposite faces carry matching triangulations (Gmsh's periodic
// constraint), so any of its three pairs can be joined by [[mesh.periodic]]. Surfaces xmin..zmax
// (1..6) and the volume "domain" (10).
// tools/make_meshes.sh makes periodic_box.msh (the unit box, lc 0.2) and taylor_green.msh
// ([-pi, pi]^3, lc = 2 pi / 16) from it.
SetFactory("OpenCASCADE");
If (!Exists(L)) L = 1; EndIf
If (!Exists(x0)) x0 = 0; EndIf
If (!Exists(lc)) lc = 0.25; EndIf
Box(1) = {x0, x0, x0, L, L, L};
Mesh.CharacteristicLengthMax = lc;
Mesh.CharacteristicLengthMin = lc;
e = 1e-6 * L;
x1 = x0 + L;
xmin() = Surface In BoundingBox{x0 - e, x0 - e, x0 - e, x0 + e, x1 + e, x1 + e};
xmax() = Surface In BoundingBox{x1 - e, x0 - e, x0 - e, x1 + e, x1 + e, x1 + e};
ymin() = Surface In BoundingBox{x0 - e, x0 - e, x0 - e, x1 + e, x0 + e, x1 + e};
ymax() = Surface In BoundingBox{x0 - e, x1 - e, x0 - e, x1 + e, x1 + e, x1 + e};
zmin() = Surface In BoundingBox{x0 - e, x0 - e, x0 - e, x1 + e, x1 + e, x0 + e};
zmax() = Surface In BoundingBox{x0 - e, x0 - e, x1 - e, x1 + e, x1 + e, x1 + e};
Periodic Surface{xmax()} = {xmin()} Translate{L, 0, 0};
Periodic Surface{ymax()} = {ymin()} Translate{0, L, 0};
Periodic Surface{zmax()} = {zmin()} Translate{0, 0, L};
Physical Surface("xmin", 1) = {xmin()};
Physical Surface("xmax", 2) = {xmax()};
Physical Surface("ymin", 3) = {ymin()};
Physical Surface("ymax", 4) = {ymax()};
Physical Surface("zmin", 5) = {zmin()};
Physical Surface("zmax", 6) = {zmax()};
Physical Volume("domain", 10) = {1};
