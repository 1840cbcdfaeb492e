// DFG benchmark 3D-1Z (Schäfer & Turek 1996): a channel 2.5 x 0.41 x 0.41 along x with a circular
// cylinder (diameter 0.1, axis along z, centre x = 0.5, y = 0.2) across its whole height.
// Inlet at x = 0, outlet at x = 2.5. Mesh size lc far away, lc_cyl on the cylinder.
SetFactory("OpenCASCADE");
If (!Exists(lc)) lc = 0.06; EndIf          // override: gmsh -setnumber lc <value>
If (!Exists(lc_cyl)) lc_cyl = lc / 4; EndIf
L = 2.5; H = 0.41; D = 0.1; xc = 0.5; yc = 0.2;
Box(1) = {0, 0, 0, L, H, H};
Cylinder(2) = {xc, yc, 0, 0, 0, H, D / 2};
BooleanDifference(3) = {Volume{1}; Delete;}{Volume{2}; Delete;};
eps = 1e-6;
inlet() = Surface In BoundingBox{-eps, -eps, -eps, eps, H+eps, H+eps};
outlet() = Surface In BoundingBox{L-eps, -eps, -eps, L+eps, H+eps, H+eps};
cylinder() = Surface In BoundingBox{xc-D/2-eps, yc-D/2-eps, -eps, xc+D/2+eps, yc+D/2+eps, H+eps};
all() = Surface In BoundingBox{-eps, -eps, -eps, L+eps, H+eps, H+eps};
Physical Surface("inlet", 1) = {inlet()};
Physical Surface("outlet", 2) = {outlet()};
Physical Surface("cylinder", 3) = {cylinder()};
Physical Surface("walls", 4) = {all()};
Physical Surface("walls", 4) -= {inlet(), outlet(), cylinder()};
Physical Volume("fluid", 10) = {3};
// Fine near the cylinder (and in its wake), coarse elsewhere.
Field[1] = Distance;
Field[1].SurfacesList = {cylinder()};
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = lc_cyl;
Field[2].SizeMax = lc;
Field[2].DistMin = 0;
Field[2].DistMax = 0.3;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
