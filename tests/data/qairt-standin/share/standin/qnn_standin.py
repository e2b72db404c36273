"""aipc test stand-in for the QAIRT SDK's QNN and SNPE tools (NOT the Qualcomm SDK; tests only;
see ../../README.md). One implementation behind the ten tool names in bin/x86_64-linux-clang/.

Libraries, contexts and DLCs are containers: b"QNN-STANDIN\\n", an 8-byte little-endian header length,
a JSON header, then the ONNX model the converter wrote. qnn-net-run and snpe-net-run execute them with
onnxruntime on the CPU."""
import argparse
import json
import os
import struct
import sys
import time

MAGIC = b"QNN-STANDIN\n"
VERSION = "2.37.0.250724 (aipc test stand-in)"
TARGETS = {"x86_64-linux-clang", "aarch64-android", "aarch64-ubuntu-gcc9.4", "aarch64-oe-linux-gcc11.2"}
# Operators the stand-in's backends do not have (a few the documented errors name).
UNSUPPORTED = {"Einsum", "NonZero", "Unique", "GridSample", "ScatterND", "Mod"}


def log(level, text):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')},000 - {level} - {text}", file=sys.stderr if level == "ERROR" else sys.stdout,
          flush=True)


def fail(text, code=1):
    log("ERROR", text)
    return code


def write_container(path, header, payload):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    head = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<Q", len(head)) + head + payload)


def read_container(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(MAGIC):
        raise ValueError(f"{path} is not a QNN model library or context binary")
    n = struct.unpack("<Q", data[len(MAGIC):len(MAGIC) + 8])[0]
    start = len(MAGIC) + 8
    return json.loads(data[start:start + n]), data[start + n:]


def walk_nodes(graph):
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.g is not None and attr.g.node:
                yield from walk_nodes(attr.g)
            for g in attr.graphs:
                yield from walk_nodes(g)


def read_input_list(path, inputs):
    """Lines of `path` or `name:=path …`: one dict name -> float32 array per line."""
    import numpy as np

    base = os.path.dirname(os.path.abspath(path))
    samples = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            arrays = {}
            for k, word in enumerate(words):
                name, _, file = word.rpartition(":=")
                name = name or inputs[k]["name"]
                file = file if os.path.isabs(file) else os.path.join(base, file)
                spec = next((i for i in inputs if i["name"] == name), None)
                if spec is None:
                    raise ValueError(f"input list names an input '{name}' the model does not have")
                data = np.fromfile(file, dtype=np.float32)
                if data.size != int(np.prod(spec["dims"])):
                    raise ValueError(f"{file}: {data.size} float32 values, input '{name}' needs {spec['dims']}")
                arrays[name] = data.reshape(spec["dims"])
            samples.append(arrays)
    return samples


def fake_quant(x, lo, hi, bits):
    import numpy as np

    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = (hi - lo) / (2 ** bits - 1) or 1.0
    zero = round(-lo / scale)
    q = np.clip(np.round(x / scale) + zero, 0, 2 ** bits - 1)
    return ((q - zero) * scale).astype(np.float32)


def session(model_bytes):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(model_bytes, sess_options=opts, providers=["CPUExecutionProvider"])


def run_net(net, sess, samples):
    q = net.get("quantization")
    outs = []
    for arrays in samples:
        feed = dict(arrays)
        if q:
            feed = {k: fake_quant(v, *q["inputs"][k], q["act_bw"]) for k, v in feed.items()}
        ys = sess.run(None, feed)
        if q:
            ys = [fake_quant(y, *q["outputs"][o["name"]], q["act_bw"]) for y, o in zip(ys, net["outputs"])]
        outs.append(ys)
    return outs


def load_network(path, given, dry_run):
    """The ONNX model at `path` with the `given` dims fixed, as both converters read it: returns
    (model, inputs, outputs, ops), or an exit code after the SDK's error line."""
    import numpy as np
    import onnx

    if not os.path.isfile(path):
        return fail(f"Input network {path} does not exist")
    model = onnx.load(path)
    log("INFO", f"Processing ONNX model {path} (opset {model.opset_import[0].version})")
    inits = {i.name for i in model.graph.initializer}
    inputs, dynamic = [], []
    for v in model.graph.input:
        if v.name in inits:
            continue
        dims = [d.dim_value if d.HasField("dim_value") else 0 for d in v.type.tensor_type.shape.dim]
        if v.name in given:
            dims = given[v.name]
        elif any(d <= 0 for d in dims):
            dynamic.append(v.name)
        inputs.append({"name": v.name, "dims": dims, "dtype": "float32"})
    if dynamic:
        return fail(f"Missing command line inputs for dynamic inputs {dynamic} in the model.")
    ops = {}
    for node in walk_nodes(model.graph):
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
        if node.op_type == "MaxPool":
            log("WARNING", "MaxPool: unsupported version, converting anyway")
    bad = sorted(op for op in ops if op in UNSUPPORTED)
    if dry_run:
        for op, n in sorted(ops.items()):
            print(f"  {op:<24} {n:>4}  {'UNSUPPORTED' if op in UNSUPPORTED else 'supported'}")
        return fail(f"Unsupported operator: {bad[0]}") if bad else 0
    if bad:
        return fail(f"Unsupported operator: {bad[0]} (node {next(n.name for n in walk_nodes(model.graph) if n.op_type == bad[0])})")
    for v in model.graph.input:
        if v.name in given:
            shape = v.type.tensor_type.shape
            for d, size in zip(shape.dim, given[v.name]):
                d.ClearField("dim_param")
                d.dim_value = size
    sess = session(model.SerializeToString())
    zeros = {i["name"]: np.zeros(i["dims"], np.float32) for i in inputs}
    outputs = [{"name": o.name, "dims": list(y.shape)} for o, y in zip(sess.get_outputs(), sess.run(None, zeros))]
    return model, inputs, outputs, ops


def round_fp16(model):
    """FP16 weights, as the HTP would hold them."""
    import numpy as np
    from onnx import numpy_helper

    for init in model.graph.initializer:
        w = numpy_helper.to_array(init)
        if w.dtype == np.float32:
            init.CopyFrom(numpy_helper.from_array(w.astype(np.float16).astype(np.float32), init.name))


def quantize(model, inputs, outputs, samples, act_bw, weight_bw):
    """Round the weights to `weight_bw` bits (in place) and calibrate the activation ranges at the
    graph's inputs and outputs on `samples`: the net's "quantization" entry."""
    import numpy as np
    from onnx import numpy_helper

    for init in model.graph.initializer:
        w = numpy_helper.to_array(init)
        if w.dtype == np.float32 and w.size > 1:
            scale = float(np.abs(w).max()) / (2 ** (weight_bw - 1) - 1) or 1.0
            init.CopyFrom(numpy_helper.from_array((np.round(w / scale) * scale).astype(np.float32), init.name))
    sess = session(model.SerializeToString())
    ranges_in = {i["name"]: [float(min(s[i["name"]].min() for s in samples)), float(max(s[i["name"]].max() for s in samples))]
                 for i in inputs}
    ys = [sess.run(None, s) for s in samples]
    ranges_out = {o["name"]: [float(min(y[k].min() for y in ys)), float(max(y[k].max() for y in ys))]
                  for k, o in enumerate(outputs)}
    log("INFO", f"Quantized with {len(samples)} calibration samples: act_bw {act_bw}, weight_bw {weight_bw}")
    return {"act_bw": act_bw, "weight_bw": weight_bw, "calibration_samples": len(samples),
            "inputs": ranges_in, "outputs": ranges_out}


def converter(argv):
    p = argparse.ArgumentParser(prog="qnn-onnx-converter")
    p.add_argument("--input_network", "-i", required=True)
    p.add_argument("--output_path", "-o")
    p.add_argument("--float_bitwidth", type=int, default=32, choices=[16, 32])
    p.add_argument("--preserve_io", action="store_true")
    p.add_argument("-d", "--input_dim", nargs=2, action="append", default=[], metavar=("NAME", "DIMS"))
    p.add_argument("--input_list")
    p.add_argument("--act_bw", type=int, default=8, choices=[8, 16])
    p.add_argument("--weight_bw", type=int, default=8, choices=[4, 8])
    p.add_argument("--dry_run", action="store_true")
    p.add_argument("--version", action="version", version=VERSION)
    a = p.parse_args(argv)
    given = {name: [int(d) for d in dims.split(",")] for name, dims in a.input_dim}
    loaded = load_network(a.input_network, given, a.dry_run)
    if isinstance(loaded, int):
        return loaded
    model, inputs, outputs, ops = loaded
    if not a.output_path:
        return fail("--output_path is required")
    if a.float_bitwidth == 16:
        round_fp16(model)
    quant = None
    if a.input_list:
        samples = read_input_list(a.input_list, inputs)
        if not samples:
            return fail(f"input list {a.input_list} names no samples")
        quant = quantize(model, inputs, outputs, samples, a.act_bw, a.weight_bw)
    stem = os.path.splitext(a.output_path)[0]
    os.makedirs(os.path.dirname(os.path.abspath(a.output_path)), exist_ok=True)
    net = {"converter": VERSION, "graph": os.path.basename(stem), "float_bitwidth": a.float_bitwidth,
           "preserve_io": a.preserve_io, "inputs": inputs, "outputs": outputs, "ops": ops, "quantization": quant}
    with open(a.output_path, "w") as f:
        f.write(f"// QNN model source written by the aipc test stand-in converter ({VERSION}); "
                f"{sum(ops.values())} ops: {', '.join(sorted(ops))}\n")
    with open(stem + ".bin", "wb") as f:
        f.write(model.SerializeToString())
    with open(stem + "_net.json", "w") as f:
        json.dump(net, f, indent=1)
    log("INFO", f"Conversion complete: {a.output_path}, {stem}.bin, {stem}_net.json")
    return 0


def qairt_converter(argv):
    """qairt-converter: ONNX -> DLC (the stand-in's container, kind "dlc")."""
    p = argparse.ArgumentParser(prog="qairt-converter")
    p.add_argument("--input_network", "-i", required=True)
    p.add_argument("--output_path", "-o")
    p.add_argument("--float_bitwidth", type=int, default=32, choices=[16, 32])
    p.add_argument("--preserve_io", action="store_true")
    p.add_argument("--source_model_input_shape", "-s", nargs=2, action="append", default=[], metavar=("NAME", "DIMS"))
    p.add_argument("--dry_run", action="store_true")
    p.add_argument("--version", action="version", version=VERSION)
    a = p.parse_args(argv)
    given = {name: [int(d) for d in dims.split(",")] for name, dims in a.source_model_input_shape}
    loaded = load_network(a.input_network, given, a.dry_run)
    if isinstance(loaded, int):
        return loaded
    model, inputs, outputs, ops = loaded
    if not a.output_path or not a.output_path.endswith(".dlc"):
        return fail(f"--output_path must name a .dlc file, got {a.output_path}")
    if a.float_bitwidth == 16:
        round_fp16(model)
    net = {"converter": VERSION, "float_bitwidth": a.float_bitwidth, "preserve_io": a.preserve_io,
           "inputs": inputs, "outputs": outputs, "ops": ops, "quantization": None}
    write_container(a.output_path, {"kind": "dlc", "target": "any", "net": net}, model.SerializeToString())
    log("INFO", f"Conversion complete: {a.output_path}")
    return 0


def dlc_quant(argv):
    """snpe-dlc-quant: FP DLC + input list -> quantized DLC."""
    import onnx

    p = argparse.ArgumentParser(prog="snpe-dlc-quant")
    p.add_argument("--input_dlc", required=True)
    p.add_argument("--input_list", required=True)
    p.add_argument("--output_dlc", required=True)
    p.add_argument("--act_bitwidth", type=int, default=8, choices=[8, 16])
    p.add_argument("--weights_bitwidth", type=int, default=8, choices=[4, 8])
    p.add_argument("--enable_htp", action="store_true")
    a = p.parse_args(argv)
    try:
        header, payload = read_container(a.input_dlc)
    except (OSError, ValueError) as e:
        return fail(f"Failed to load the DLC {a.input_dlc}: {e}")
    net = header["net"]
    if net.get("quantization"):
        return fail(f"{a.input_dlc} is already quantized")
    try:
        samples = read_input_list(a.input_list, net["inputs"])
    except (OSError, ValueError) as e:
        return fail(f"Failed to read the input list {a.input_list}: {e}")
    if not samples:
        return fail(f"input list {a.input_list} names no samples")
    model = onnx.load_from_string(payload)
    net = dict(net, quantization=quantize(model, net["inputs"], net["outputs"], samples, a.act_bitwidth,
                                          a.weights_bitwidth), htp_prepared=a.enable_htp)
    write_container(a.output_dlc, {"kind": "dlc", "target": "any", "net": net}, model.SerializeToString())
    log("INFO", f"Quantized DLC saved at {a.output_dlc}" + (" (HTP graph prepared offline)" if a.enable_htp else ""))
    return 0


def dlc_info(argv):
    p = argparse.ArgumentParser(prog="snpe-dlc-info")
    p.add_argument("-i", "--input_dlc", required=True)
    a = p.parse_args(argv)
    try:
        header, _ = read_container(a.input_dlc)
    except (OSError, ValueError) as e:
        return fail(f"Failed to load the DLC {a.input_dlc}: {e}")
    net = header["net"]
    print(f"DLC info of {a.input_dlc} (aipc test stand-in, {VERSION})")
    for i in net["inputs"]:
        print(f"Input  {i['name']}: {i['dims']} {i['dtype']}")
    for o in net["outputs"]:
        print(f"Output {o['name']}: {o['dims']}")
    for op, n in sorted(net["ops"].items()):
        print(f"  {op:<24} {n:>4}")
    q = net.get("quantization")
    print(f"Quantized: act {q['act_bw']} bit, weights {q['weight_bw']} bit" if q else "Quantized: no")
    return 0


def lib_generator(argv):
    p = argparse.ArgumentParser(prog="qnn-model-lib-generator")
    p.add_argument("-c", "--cpp", required=True)
    p.add_argument("-b", "--bin", required=True)
    p.add_argument("-o", "--output_dir", required=True)
    p.add_argument("-t", "--lib_targets", default="x86_64-linux-clang")
    p.add_argument("-l", "--lib_name")
    a = p.parse_args(argv)
    if not a.cpp.endswith(".cpp") or not os.path.isfile(a.cpp):
        return fail(f"Unable to find the model source file, invalid path: {a.cpp} is not a cpp model file")
    if not os.path.isfile(a.bin):
        return fail(f"Unable to find the model binary file: {a.bin}")
    net_path = os.path.splitext(a.cpp)[0] + "_net.json"
    with open(net_path) as f:
        net = json.load(f)
    with open(a.bin, "rb") as f:
        payload = f.read()
    name = a.lib_name or os.path.splitext(os.path.basename(a.cpp))[0]
    for target in a.lib_targets.split():
        if target not in TARGETS:
            return fail(f"Unsupported target {target}: one of {', '.join(sorted(TARGETS))}")
        out = os.path.join(a.output_dir, target, f"lib{name}.so")
        write_container(out, {"kind": "model-lib", "target": target, "net": net}, payload)
        print(f"[INFO] Generated {out}", flush=True)
    return 0


def context_generator(argv):
    p = argparse.ArgumentParser(prog="qnn-context-binary-generator")
    p.add_argument("--backend", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--binary_file", required=True)
    p.add_argument("--output_dir", default="output")
    p.add_argument("--profiling_level")
    a = p.parse_args(argv)
    if not os.path.isfile(a.backend):
        return fail(f"Unable to load backend. pal::dynamicloading::dlError: {a.backend}: cannot open shared object file")
    if not os.path.basename(a.backend).startswith("libQnnHtp"):
        return fail(f"{os.path.basename(a.backend)} does not support offline context generation (use libQnnHtp.so)")
    try:
        header, payload = read_container(a.model)
    except (OSError, ValueError):
        return fail(f"Error initializing QNN Function Pointers: could not load model: {a.model}")
    if header["net"].get("quantization") is None and header["net"].get("float_bitwidth") == 32:
        log("WARNING", "FP32 graph on HTP: prepared as FP16")
    out = os.path.join(a.output_dir, a.binary_file + ".bin")
    write_container(out, {"kind": "context", "backend": "htp", "target": header["target"], "net": header["net"]}, payload)
    print(f"[INFO] Context binary saved at {out}", flush=True)
    return 0


def net_run(argv):
    p = argparse.ArgumentParser(prog="qnn-net-run")
    p.add_argument("--model")
    p.add_argument("--retrieve_context")
    p.add_argument("--backend", required=True)
    p.add_argument("--input_list", required=True)
    p.add_argument("--output_dir", default="output")
    p.add_argument("--profiling_level", choices=["basic", "detailed"])
    p.add_argument("--use_native_output_files", action="store_true")
    p.add_argument("--debug", action="store_true")
    a = p.parse_args(argv)
    if bool(a.model) == bool(a.retrieve_context):
        return fail("exactly one of --model and --retrieve_context is required (they are mutually exclusive)")
    if not os.path.isfile(a.backend):
        return fail(f"Unable to load backend. pal::dynamicloading::dlError: {a.backend}: cannot open shared object file")
    path = a.model or a.retrieve_context
    try:
        header, payload = read_container(path)
    except (OSError, ValueError):
        if a.retrieve_context:
            return fail(f"Could not create context from binary for context index = 0 : err 5000")
        return fail(f"Error initializing QNN Function Pointers: could not load model: {path}")
    if a.retrieve_context and not os.path.basename(a.backend).startswith("libQnnHtp"):
        return fail("Failed to interpret QNN context binary. Error code 30010")
    if header["target"] != "x86_64-linux-clang":
        return fail(f"Error initializing QNN Function Pointers: could not load model: {path} (built for {header['target']})")
    times = execute(header["net"], payload, a.input_list, a.output_dir)
    if isinstance(times, int):
        return times
    if a.profiling_level:
        with open(os.path.join(a.output_dir, "qnn-profiling-data_0.log"), "w") as f:
            json.dump({"backend": os.path.basename(a.backend), "level": a.profiling_level,
                       "executions_us": [round(t) for t in times]}, f)
    print(f"qnn-net-run: {len(times)} inference(s) done, outputs in {a.output_dir}", flush=True)
    return 0


def execute(net, payload, input_list, output_dir):
    """Run every sample of `input_list` through the net, write `Result_<i>/<output>.raw` under
    `output_dir`; returns each execution's time in µs (or an exit code after the error line)."""
    import numpy as np

    try:
        samples = read_input_list(input_list, net["inputs"])
    except (OSError, ValueError) as e:
        return fail(f"Failed to read the input list {input_list}: {e}")
    times = []
    outs = []
    sess = session(payload)  # the graph is prepared once, as the runtime does; executions are timed
    for arrays in samples:
        t0 = time.perf_counter()
        (ys,) = run_net(net, sess, [arrays])
        times.append((time.perf_counter() - t0) * 1e6)
        outs.append(ys)
    for i, ys in enumerate(outs):
        d = os.path.join(output_dir, f"Result_{i}")
        os.makedirs(d, exist_ok=True)
        for o, y in zip(net["outputs"], ys):
            np.asarray(y, dtype=np.float32).tofile(os.path.join(d, o["name"].replace(":", "_").replace("/", "_") + ".raw"))
    return times


def snpe_net_run(argv):
    p = argparse.ArgumentParser(prog="snpe-net-run")
    p.add_argument("--container", required=True)
    p.add_argument("--input_list", required=True)
    p.add_argument("--output_dir", default="output")
    p.add_argument("--use_dsp", action="store_true")
    p.add_argument("--use_cpu", action="store_true")
    p.add_argument("--perf_profile")
    p.add_argument("--profiling_level", choices=["off", "basic", "moderate", "detailed"])
    a = p.parse_args(argv)
    try:
        header, payload = read_container(a.container)
    except (OSError, ValueError) as e:
        return fail(f"Failed to load the DLC {a.container}: {e}")
    if header.get("kind") != "dlc":
        return fail(f"{a.container} is not a DLC")
    runtime = "DSP" if a.use_dsp else "CPU"
    times = execute(header["net"], payload, a.input_list, a.output_dir)
    if isinstance(times, int):
        return times
    if a.profiling_level and a.profiling_level != "off":
        with open(os.path.join(a.output_dir, "SNPEDiag_0.log"), "w") as f:
            json.dump({"runtime": runtime, "level": a.profiling_level, "executions_us": [round(t) for t in times]}, f)
    print(f"snpe-net-run ({runtime}): {len(times)} inference(s) done, outputs in {a.output_dir}", flush=True)
    return 0


def show_profile(prog, extra_args, header_key, stat):
    """qnn-profile-viewer / snpe-diagview: the executions of a profiling log the stand-in's runtime
    wrote, one `Execute Stats (Execution i)` block each with `stat`, then their average."""
    def viewer(argv):
        p = argparse.ArgumentParser(prog=prog)
        p.add_argument("--input_log", required=True)
        for arg in extra_args:
            p.add_argument(arg)
        a = p.parse_args(argv)
        try:
            with open(a.input_log) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            return fail(f"Failed to read the profiling log {a.input_log}: {e}")
        times = data["executions_us"]
        print(f"Input Log File Location: {a.input_log}\nLog File Created: {time.ctime()}\n"
              f"{header_key.capitalize()}: {data[header_key]}\n")
        for i, t in enumerate(times):
            print(f"Execute Stats (Execution {i}):\n---------------------\n    {stat}: {t} us\n")
        if times:
            print(f"Execute Stats (Average):\n------------------------\n    {stat}: {round(sum(times) / len(times))} us")
        return 0

    return viewer


profile_viewer = show_profile("qnn-profile-viewer", ["--reader", "--output"], "backend", "NetRun")
diagview = show_profile("snpe-diagview", ["--output", "--output_format"], "runtime", "Total Inference Time")


TOOLS = {"qnn-onnx-converter": converter, "qnn-model-lib-generator": lib_generator,
         "qnn-context-binary-generator": context_generator, "qnn-net-run": net_run, "qnn-profile-viewer": profile_viewer,
         "qairt-converter": qairt_converter, "snpe-dlc-quant": dlc_quant, "snpe-dlc-info": dlc_info,
         "snpe-net-run": snpe_net_run, "snpe-diagview": diagview}


def main(tool, argv):
    return TOOLS[tool](argv)
