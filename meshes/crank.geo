// A crankshaft-like part (cf. the thesis' Fig. 5.1): main journals and a crank pin along x,
// joined by two webs. Surfaces: "journal_left"/"journal_right" (the shaft end faces, where it is
// held), "pin" (the crank pin's cylindrical face, where load is applied), "surface" (the rest).
SetFactory("OpenCASCADE");
If (!Exists(lc)) lc = 0.6; EndIf  // override: gmsh -setnumber lc <value>
r = 1.0;  // journal radius
rp = 0.8; // pin radius
e = 2.0;  // crank throw (pin offset in y)
Cylinder(1) = {-3, 0, 0, 2.4, 0, 0, r};      // left journal  x in [-3, -0.6]
Cylinder(2) = {0.6, 0, 0, 2.4, 0, 0, r};     // right journal x in [0.6, 3]
Cylinder(3) = {-1.0, e, 0, 2.0, 0, 0, rp};   // crank pin     x in [-1, 1]
Box(4) = {-1.0, -1.5, -1.5, 0.4, e + 2.5, 3};  // left web   x in [-1, -0.6]
Box(5) = {0.6, -1.5, -1.5, 0.4, e + 2.5, 3};   // right web  x in [0.6, 1]
BooleanUnion(10) = { Volume{1}; Delete; }{ Volume{2, 3, 4, 5}; Delete; };
Mesh.CharacteristicLengthMax = lc;
eps = 1e-6;
left() = Surface In BoundingBox{-3-eps, -r-eps, -r-eps, -3+eps, r+eps, r+eps};
right() = Surface In BoundingBox{3-eps, -r-eps, -r-eps, 3+eps, r+eps, r+eps};
pin() = Surface In BoundingBox{-0.6-eps, e-rp-eps, -rp-eps, 0.6+eps, e+rp+eps, rp+eps};
all() = Surface In BoundingBox{-3-eps, -2, -2, 3+eps, e+2, 2};
Physical Surface("journal_left", 1) = {left()};
Physical Surface("journal_right", 2) = {right()};
Physical Surface("pin", 3) = {pin()};
Physical Surface("surface", 4) = {all()};
Physical Surface("surface", 4) -= {left(), right(), pin()};
Physical Volume("steel", 10) = {Volume{:}};
