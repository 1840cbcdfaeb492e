"""Readers that decide whether a streamsolve output file is complete, shared by the end-to-end checks
(tests/app/check_flow_command.py, tests/app/check_faults.py). Each raises on a damaged file."""
import json
import os
import struct
import xml.etree.ElementTree as ElementTree
import zlib


def read_state(path):
    """A flow_NNNNNN.state (version 8, src/postprocess/flow_state_file.hpp) and its expected size."""
    data = open(path, "rb").read()
    assert data[:8] == b"SSFLOWST", path
    (version, step, t, dt, faces, cells, previous, edges, base_levels, vorticity, previous_vorticity, temperatures,
     convection, increments, older_rates, increment_dt, older_dt) = struct.unpack_from("<Iiddqqqqiqqqqqqdd", data, 8)
    assert version == 8, f"{path}: version {version}"
    at = 8 + struct.calcsize("<Iiddqqqqiqqqqqqdd")
    counts = [faces, cells, previous, edges, vorticity, previous_vorticity, temperatures, convection, increments,
              older_rates]
    values = struct.unpack_from("<%dd" % sum(counts), data, at)
    names = ["flux", "pressure", "previous_flux", "streamfunction", "vorticity", "previous_vorticity", "temperature",
             "previous_convection", "pressure_increment", "previous_pressure_rate"]
    state = {"step": step, "time": t, "dt": dt, "base_levels": base_levels, "size": at + 8 * sum(counts) + 8,
             "file_size": len(data), "pressure_increment_dt": increment_dt, "previous_pressure_increment_dt": older_dt}
    for name, count in zip(names, counts):
        state[name], values = values[:count], values[count:]
    return state


def check_png(path):
    """Every chunk's CRC, the image data inflates to height × (1 + row bytes), and IEND closes the file."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: no PNG signature"
    at, idat, width, height, row_bytes, kind = 8, b"", 0, 0, 0, b""
    while kind != b"IEND":
        length, kind = struct.unpack_from(">I4s", data, at)
        body = data[at + 8:at + 8 + length]
        (crc,) = struct.unpack_from(">I", data, at + 8 + length)
        assert len(body) == length and zlib.crc32(kind + body) == crc, f"{path}: chunk {kind} damaged"
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack_from(">IIBB", body)
            channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
            row_bytes = (width * channels * depth + 7) // 8
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    assert at == len(data), f"{path}: bytes after IEND"
    assert len(zlib.decompress(idat)) == height * (1 + row_bytes), f"{path}: image data of the wrong size"


def check_pvd(path):
    """Parses as XML, and every data set it lists exists beside it."""
    root = ElementTree.parse(path).getroot()
    for data_set in root.iter("DataSet"):
        listed = os.path.join(os.path.dirname(path), data_set.get("file"))
        assert os.path.isfile(listed), f"{path} lists {data_set.get('file')}, which does not exist"


def check_output_file(path):
    """Reads one final-named output file with the reader its users would use; raises if it is damaged.
    Returns False for names that are not outputs (temporaries, case files)."""
    name = os.path.basename(path)
    if ".tmp." in name:
        return False
    if name.endswith(".vtu"):
        import meshio
        mesh = meshio.read(path)
        assert len(mesh.points) > 0 and len(mesh.cells) > 0, f"{path}: no points or cells"
    elif name.endswith(".pvd"):
        check_pvd(path)
    elif name.endswith(".json"):
        json.load(open(path))
    elif name.endswith(".png"):
        check_png(path)
    elif name.endswith(".state"):
        state = read_state(path)
        assert state["file_size"] == state["size"], f"{path}: {state['file_size']} bytes, expected {state['size']}"
    else:
        return False
    return True
