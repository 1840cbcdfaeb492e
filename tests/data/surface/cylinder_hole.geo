// A small block with a cylindrical hole, for the [[mesh.surface]] tests: 0.4 x 0.4 x 0.1 with a
// hole of radius 0.1 along z through (0.2, 0.2). Exact volume 0.016 - 0.001 pi.
// gmsh -3 cylinder_hole.geo -o cylinder_hole.msh
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.4, 0.4, 0.1};
Cylinder(2) = {0.2, 0.2, 0, 0, 0, 0.1, 0.1};
BooleanDifference(3) = {Volume{1}; Delete;}{Volume{2}; Delete;};
eps = 1e-6;
hole() = Surface In BoundingBox{0.1-eps, 0.1-eps, -eps, 0.3+eps, 0.3+eps, 0.1+eps};
all() = Surface In BoundingBox{-eps, -eps, -eps, 0.4+eps, 0.4+eps, 0.1+eps};
Physical Surface("cylinder", 1) = {hole()};
Physical Surface("outer", 2) = {all()};
Physical Surface("outer", 2) -= {hole()};
Physical Volume("solid", 10) = {3};
Mesh.MeshSizeMin = 0.07;
Mesh.MeshSizeMax = 0.07;
Mesh.MeshSizeFromCurvature = 0;
