//! The evidence classifier tables of the real targets against recorded toolchain output: each
//! fixture under `tests/data/` must get its signature id, class and key facts; every signature
//! must be hit by some fixture; unknown logs get a stable fallback; every skill a fix names
//! exists.

use aipc::evidence::{Classifier, Failure};
use aipc::skills::SkillSet;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

const ORT: &str = "onnxruntime-cpu";
const ET: &str = "executorch-xnnpack";
/// Not a selectable target yet (no contract): its table is tested on the quoted messages.
const QAIRT: &str = "qairt-qnn";
const TARGETS: [&str; 3] = [ORT, ET, QAIRT];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The target's table, loaded once per test binary (regexes compile slowly in debug builds).
fn table(target: &str) -> &'static Classifier {
    static TABLES: std::sync::OnceLock<BTreeMap<&'static str, Classifier>> =
        std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        TARGETS
            .iter()
            .map(|t| {
                let path = root()
                    .join("toolbox/targets")
                    .join(t)
                    .join("signatures.toml");
                let classifier = Classifier::load(&path).unwrap_or_else(|e| panic!("{e}"));
                assert!(!classifier.is_empty(), "{} is empty", path.display());
                (*t, classifier)
            })
            .collect()
    });
    &tables[target]
}

/// One fixture and what the classifier must make of it.
#[derive(Clone)]
struct Case {
    target: &'static str,
    /// Relative to `tests/data/`.
    fixture: &'static str,
    /// The failed check's name and its gate failures (`<gate>=<measured>`, as the engine
    /// records them).
    check: &'static str,
    gates: &'static [&'static str],
    id: &'static str,
    class: &'static str,
    facts: &'static [(&'static str, &'static str)],
}

const fn case(
    target: &'static str,
    fixture: &'static str,
    id: &'static str,
    class: &'static str,
    facts: &'static [(&'static str, &'static str)],
) -> Case {
    Case {
        target,
        fixture,
        check: "export",
        gates: &[],
        id,
        class,
        facts,
    }
}

const fn gated(
    target: &'static str,
    fixture: &'static str,
    check: &'static str,
    gates: &'static [&'static str],
    id: &'static str,
    class: &'static str,
    facts: &'static [(&'static str, &'static str)],
) -> Case {
    Case {
        target,
        fixture,
        check,
        gates,
        id,
        class,
        facts,
    }
}

/// One row per fixture (a table, so `rustfmt` keeps its shape).
#[rustfmt::skip]
const CASES: &[Case] = &[
    // ---- torch.export (shared table), through both targets
    case(ET, "probes/et_fail--data-dependent-guard.txt", "export.data_dependent_guard", "data-dependent-control-flow",
        &[("expression", "Eq(u0, 1)"), ("file", "et_fail.py"), ("line", "15"), ("function", "forward"), ("code", "if x.sum() > 0: return x*2")]),
    case(ORT, "traces/ort--dynamo-data-dependent.txt", "export.data_dependent_guard", "data-dependent-control-flow",
        &[("expression", "Eq(u0, 1)"), ("file", "gen_ort.py"), ("line", "38"), ("code", "if x.sum() > 0:")]),
    // The ONNX exporter's step-1 wrapper: the cause inside it wins.
    case(ORT, "probes/onnx_t--torch-export-error-step1.txt", "export.data_dependent_guard", "data-dependent-control-flow",
        &[("expression", "Eq(u0, 1)")]),
    case(ET, "probes/et_fail--item-size.txt", "export.data_dependent_int", "data-dependent-size",
        &[("expression", "TruncToInt(zuf0)"), ("file", "et_fail.py"), ("line", "25"), ("function", "forward")]),
    case(ORT, "probes/et_fail--item-size.txt", "export.data_dependent_int", "data-dependent-size",
        &[("expression", "TruncToInt(zuf0)"), ("line", "25")]),
    case(ET, "traces/et--item-size.txt", "export.data_dependent_int", "data-dependent-size",
        &[("expression", "TruncToInt(zuf0)"), ("file", "gen_et.py"), ("line", "73")]),
    case(ET, "probes/et_fail--constraints-violated.txt", "export.dynamic_specialized", "dynamic-shape-specialized",
        &[("dims", "batch"), ("dim", "batch"), ("value", "4"), ("suggested_fix", "batch = 4")]),
    case(ORT, "probes/et_fail--constraints-violated.txt", "export.dynamic_specialized", "dynamic-shape-specialized",
        &[("dim", "batch"), ("value", "4")]),
    case(ET, "probes/et_fail--zero-one-specialized.txt", "export.zero_one_specialized", "dynamic-shape-specialized",
        &[("dim", "b"), ("value", "1")]),
    case(ORT, "probes/et_fail--zero-one-specialized.txt", "export.zero_one_specialized", "dynamic-shape-specialized",
        &[("dim", "b"), ("value", "1")]),
    case(ET, "synthetic/issue-not-exportable.txt", "export.not_exportable", "export-failed", &[]),
    case(ORT, "synthetic/issue-not-exportable.txt", "export.not_exportable", "export-failed", &[]),
    // Any other torch.export failure inside torch.onnx.export.
    case(ORT, "traces/ort--dynamo-data-ptr.txt", "onnx.step1_export", "export-failed", &[("cause", "RuntimeError")]),
    case(ET, "traces/et--numpy-in-forward.txt", "export.torch_export_failed", "export-failed",
        &[("error", "RuntimeError: .numpy() is not supported for tensor subclasses.")]),
    case(ORT, "traces/et--numpy-in-forward.txt", "export.torch_export_failed", "export-failed",
        &[("error", "RuntimeError: .numpy() is not supported for tensor subclasses.")]),
    // ---- ExecuTorch lowering
    case(ET, "traces/et--lower-median.txt", "edge.non_core_aten", "unsupported-operator", &[("op", "aten.median.dim")]),
    case(ET, "probes/et_fail2--unique-non-core-aten.txt", "edge.non_core_aten", "unsupported-operator",
        &[("op", "aten._unique2.default")]),
    case(ET, "probes/et_fail--fft-complex-dtype.txt", "edge.dtype_mismatch_complex", "complex-dtype",
        &[("op", "aten.abs.default"), ("input", "self"), ("dtype", "complex64"), ("file", "et_fail.py"), ("line", "38"),
          ("code", "def forward(s,x): return torch.fft.rfft(x).abs()")]),
    case(ET, "probes/et_fail2--stft-complex-dtype.txt", "edge.dtype_mismatch_complex", "complex-dtype",
        &[("op", "aten.abs.default"), ("dtype", "complex64"), ("line", "40")]),
    // ---- ExecuTorch .pte load
    case(ET, "probes/et_q--missing-kernel.txt", "et.missing_kernel", "missing-kernel",
        &[("kernel", "aten::_unique2.out"), ("op", "aten::_unique2.out"), ("method", "forward"), ("error_code", "0x:14")]),
    case(ET, "traces/et--missing-kernel.txt", "et.missing_kernel", "missing-kernel",
        &[("kernel", "aten::_unique2.out"), ("op", "aten::_unique2.out"), ("error_code", "0x:14")]),
    case(ET, "probes/et_q--missing-operator-only.txt", "et.missing_operator", "missing-kernel",
        &[("op", "aten::_unique2.out"), ("method", "forward"), ("error_code", "0x:14")]),
    case(ET, "probes/et_q--load-method-0x14-only.txt", "et.load_method_0x14", "missing-kernel",
        &[("method", "forward"), ("error_code", "0x:14")]),
    case(ET, "probes/et_fail2--corrupt-pte.txt", "et.bad_program", "bad-artifact",
        &[("got", "ageg"), ("expected", "ET12"), ("error_code", "0x:23")]),
    case(ET, "traces/et--unknown-method.txt", "et.unknown_method", "bad-artifact", &[("method", "nope")]),
    // ---- ExecuTorch input contract
    case(ET, "probes/et_fail2--input-static-shape.txt", "et.input_static_shape", "input-contract",
        &[("expected", "2, 4"), ("got", "3, 4"), ("input", "0"), ("error_code", "0x10")]),
    case(ET, "probes/et_fail2--bounded-tensor-over-max.txt", "et.input_bounded", "input-contract",
        &[("max_elements", "64"), ("got_elements", "80"), ("input", "0")]),
    case(ET, "probes/et_fail2--input-dtype.txt", "et.input_dtype", "input-contract",
        &[("input", "0"), ("expected", "Float"), ("got", "Double")]),
    case(ET, "probes/et_fail2--input-arity.txt", "et.input_arity", "input-contract",
        &[("expected", "1"), ("got", "2")]),
    case(ET, "probes/et_fail2--set-inputs-0x10-only.txt", "et.set_inputs_failed", "input-contract",
        &[("method", "forward"), ("error_code", "0x10")]),
    // ---- torch.onnx export
    case(ORT, "traces/ort--dynamo-median.txt", "onnx.no_function", "unsupported-operator",
        &[("op", "aten.median"), ("overload", "dim"), ("node", "median")]),
    case(ORT, "probes/onnx_t2--no-onnx-function-eigh.txt", "onnx.no_function", "unsupported-operator",
        &[("op", "aten._linalg_eigh"), ("overload", "default"), ("reason", "No decompositions registered for the real-valued input"),
          ("node", "_linalg_eigh")]),
    case(ORT, "probes/onnx_t2--histc-not-implemented.txt", "onnx.export_not_implemented", "unsupported-operator",
        &[("function", "aten_histc"), ("reason", "with min == max (0.0) is not supported in this export path."), ("op", "aten.histc.default")]),
    case(ORT, "synthetic/onnx-conversion-error-generic.txt", "onnx.conversion_error", "export-conversion-failed",
        &[("node", "searchsorted"), ("op", "aten.searchsorted.Tensor")]),
    case(ORT, "probes/onnx_t--legacy-unsupported-op.txt", "onnx.ts_unsupported_op", "unsupported-operator",
        &[("op", "aten::fft_rfft"), ("opset", "17")]),
    case(ORT, "traces/ort--legacy-unsupported-op.txt", "onnx.ts_unsupported_op", "unsupported-operator",
        &[("op", "aten::fft_rfft"), ("opset", "17")]),
    // ---- onnxruntime load
    case(ORT, "probes/onnx_t--ort-opset-too-new.txt", "ort.opset_too_new", "opset-too-new",
        &[("model", "future.onnx"), ("opset", "40"), ("domain", "ai.onnx"), ("max_opset", "28")]),
    case(ORT, "probes/onnx_t--ort-ir-too-new.txt", "ort.ir_too_new", "opset-too-new",
        &[("model", "badir.onnx"), ("ir_version", "99"), ("max_ir_version", "14")]),
    case(ORT, "probes/ort_q--not-implemented-relu.txt", "ort.not_implemented", "missing-kernel",
        &[("op", "Relu"), ("opset", "14"), ("node", "")]),
    case(ORT, "probes/onnx_t--ort-type-error.txt", "ort.type_error", "invalid-graph",
        &[("dtype", "tensor(int32)"), ("input", "a"), ("op", "Sin"), ("node", "")]),
    case(ORT, "probes/misc_ov--ort-unknown-custom-op.txt", "ort.unknown_op", "unsupported-operator",
        &[("domain", "com.acme"), ("op", "FancyOp"), ("opset", "-1")]),
    case(ORT, "traces/ort--external-data-missing.txt", "ort.external_data_unreadable", "missing-external-data",
        &[("model", "_scratch/ext.onnx"), ("tensor", "val_2")]),
    // ---- onnxruntime input contract
    case(ORT, "probes/onnx_t--ort-invalid-rank.txt", "ort.invalid_rank", "input-contract",
        &[("input", "input"), ("got", "3"), ("expected", "4")]),
    case(ORT, "traces/ort--wrong-rank.txt", "ort.invalid_rank", "input-contract",
        &[("input", "input"), ("got", "3"), ("expected", "4")]),
    case(ORT, "probes/onnx_t--ort-invalid-dims.txt", "ort.invalid_dims", "input-contract",
        &[("input", "input"), ("index", "2"), ("got", "31"), ("expected", "32")]),
    case(ORT, "probes/onnx_t--ort-input-dtype.txt", "ort.input_dtype", "input-contract",
        &[("got", "tensor(double)"), ("expected", "tensor(float)")]),
    case(ORT, "probes/onnx_t--ort-missing-input.txt", "ort.missing_input", "input-contract",
        &[("expected", "['input']"), ("got", "['images']")]),
    case(ORT, "traces/ort--calibration-wrong-input-name.txt", "quant.calibration_input_name", "input-contract",
        &[("expected", "['input']"), ("got", "['images']")]),
    // ---- quantization errors, generic ORT errors
    case(ORT, "synthetic/issue-quant-params-missing.txt", "quant.params_missing", "quantization-failed",
        &[("tensor", "resnetv17_dense0_fwd")]),
    case(ORT, "synthetic/ort-runtime-exception.txt", "ort.runtime_error", "runtime-error",
        &[("code", "6"), ("status", "RUNTIME_EXCEPTION")]),
    // ---- silent failures: opset drift, external data
    case(ORT, "probes/onnx_t--opset13-not-converted.txt", "onnx.opset_not_converted", "opset-drift",
        &[("requested_opset", "13"), ("adapter", "axes_input_to_attribute")]),
    gated(ORT, "traces/ort--opset13-drift.txt", "opset", &["opset_matches == 1=0.0000"], "onnx.opset_not_converted", "opset-drift",
        &[("requested_opset", "13")]),
    gated(ORT, "synthetic/inspect-opset-drift.txt", "opset", &["opset_matches == 1=0.0000"], "onnx.opset_drift", "opset-drift",
        &[("requested_opset", "13"), ("opset", "18")]),
    gated(ORT, "synthetic/inspect-gates-only.txt", "artifact facts", &["opset_matches == 1=0.0000"], "onnx.artifact_gate", "opset-drift",
        &[("check", "artifact facts"), ("metric", "opset_matches"), ("threshold", "1"), ("measured", "0.0000")]),
    gated(ORT, "synthetic/inspect-external-data-missing.txt", "artifact facts", &["external_data_ok == 1=0.0000"],
        "onnx.external_data_missing", "missing-external-data",
        &[("model", "build/model.onnx"), ("data_file", "build/model.onnx.data")]),
    // ---- silent failures: INT8 accuracy (both targets)
    gated(ORT, "synthetic/quantize-calibration-outlier.txt", "int8 accuracy", &["top1_agreement >= 0.98=0.0000"],
        "quant.calibration_outlier", "quantization-accuracy",
        &[("sample", "17"), ("max_abs", "10000.0"), ("ratio", "625.0"), ("median_max_abs", "16.0")]),
    gated(ET, "synthetic/quantize-calibration-outlier.txt", "int8 accuracy", &["top1_agreement >= 0.98=0.0000"],
        "quant.calibration_outlier", "quantization-accuracy", &[("sample", "17")]),
    gated(ET, "synthetic/quantize-calibration-outlier-zero-median.txt", "int8 accuracy", &["top1_agreement >= 0.98=0.2000"],
        "quant.calibration_outlier", "quantization-accuracy", &[("sample", "3"), ("max_abs", "5.0"), ("median_max_abs", "0")]),
    gated(ORT, "synthetic/compare-int8.txt", "accuracy", &["top1_agreement >= 0.98=0.0000", "acc_drop_points <= 1=88.0000"],
        "quant.accuracy_collapse", "quantization-accuracy",
        &[("metric", "top1_agreement"), ("op", ">="), ("threshold", "0.98"), ("measured", "0.0000")]),
    gated(ET, "synthetic/compare-int8.txt", "accuracy", &["top1_agreement >= 0.98=0.0000"],
        "quant.accuracy_collapse", "quantization-accuracy", &[("metric", "top1_agreement"), ("measured", "0.0000")]),
    // The INT8 context from the check's name alone.
    gated(ORT, "synthetic/compare-metrics-only.txt", "int8 accuracy", &["top1_agreement == 1.0=0.0000"],
        "quant.accuracy_collapse", "quantization-accuracy",
        &[("metric", "top1_agreement"), ("op", "=="), ("threshold", "1.0"), ("measured", "0.0000")]),
    gated(ORT, "synthetic/compare-int8.txt", "accuracy", &["cosine >= 0.99=0.9536", "top1_agreement >= 0.98=0.0000"],
        "quant.accuracy_drop", "quantization-accuracy", &[("metric", "cosine"), ("threshold", "0.99"), ("measured", "0.9536")]),
    gated(ET, "synthetic/compare-metrics-only.txt", "int8 accuracy", &["cosine >= 0.99=missing"],
        "quant.accuracy_drop", "quantization-accuracy", &[("metric", "cosine")]),
    // The same gate on a float artifact is an export fidelity problem.
    gated(ORT, "synthetic/compare-fp32.txt", "accuracy", &["cosine >= 0.99=0.4100"], "accuracy.mismatch", "accuracy-mismatch",
        &[("check", "accuracy"), ("metric", "cosine"), ("measured", "0.4100")]),
    gated(ET, "synthetic/compare-fp32.txt", "accuracy", &["top1_agreement == 1.0=0.1200"], "accuracy.mismatch", "accuracy-mismatch",
        &[("metric", "top1_agreement"), ("measured", "0.1200")]),
    // The same gate when compare found the model ill-conditioned (ZooBench's efficientvit-b0,
    // random weights): the model's own rounding, named with the module where it grows.
    gated(ORT, "probes/ort_num--ill-conditioned-efficientvit.txt", "accuracy", &["cosine >= 0.99=0.9488"],
        "accuracy.ill_conditioned", "accuracy-mismatch",
        &[("eager_fp64", "0.986591"), ("artifact_fp64", "0.963587"), ("cosine", "0.948811"), ("module", "stem.in_conv.norm"),
          ("module_class", "BatchNorm2d"), ("source", "<venv>/lib/python3.11/site-packages/torch/nn/modules/batchnorm.py:176")]),
    gated(ET, "probes/ort_num--ill-conditioned-efficientvit.txt", "accuracy", &["cosine >= 0.99=0.9488"],
        "accuracy.ill_conditioned", "accuracy-mismatch", &[("module", "stem.in_conv.norm")]),
    // ---- real toolbox output (h-toolbox scripts on the digits-cnn example, tests/data/toolbox)
    case(ORT, "toolbox/ort-export-dynamo-decompose-failed.txt", "export.dynamo_failed", "export-failed",
        &[("step", "2/3"), ("what", "decompose the FX graph for ONNX compatibility")]),
    gated(ORT, "toolbox/ort-export-opset13.txt", "export", &["opset_matches == 1=0.0000"], "onnx.opset_drift", "opset-drift",
        &[("requested_opset", "13"), ("opset", "18")]),
    gated(ORT, "toolbox/ort-inspect-external-data-missing.txt", "inspect", &["external_data_ok == 1=0.0000"],
        "onnx.external_data_missing", "missing-external-data", &[("model", "build/model.onnx"), ("data_file", "build/model.onnx.data")]),
    case(ORT, "toolbox/ort-run-external-data-missing.txt", "ort.external_data_path_missing", "missing-external-data",
        &[("tensor", "features.0.weight"), ("data_file", "project/build/model.onnx.data")]),
    gated(ORT, "toolbox/ort-quantize-outlier.txt", "quantize", &["calib_outliers == 0=1.0000"], "quant.calibration_outlier",
        "quantization-accuracy", &[("sample", "17"), ("max_abs", "10000.0"), ("ratio", "10000.0"), ("median_max_abs", "1")]),
    gated(ORT, "toolbox/ort-compare-int8-outlier.txt", "accuracy", &["cosine >= 0.99=0.0000", "top1_agreement >= 0.98=0.0806"],
        "quant.accuracy_drop", "quantization-accuracy", &[("metric", "cosine"), ("measured", "0.0000")]),
    gated(ORT, "toolbox/ort-compare-int8-outlier.txt", "accuracy", &["top1_agreement >= 0.98=0.0806"],
        "quant.accuracy_collapse", "quantization-accuracy", &[("metric", "top1_agreement"), ("measured", "0.0806")]),
    gated(ORT, "toolbox/ort-profile-over-budget.txt", "latency", &["within_budget == 1=0.0000"], "perf.latency_over_budget",
        "latency-over-budget", &[("threads", "1"), ("metric", "within_budget")]),
    gated(ET, "toolbox/et-quantize-outlier.txt", "quantize", &["calib_outliers == 0=1.0000"], "quant.calibration_outlier",
        "quantization-accuracy", &[("sample", "17")]),
    case(ET, "toolbox/et-export-dynamic-batch.txt", "export.zero_one_specialized", "dynamic-shape-specialized",
        &[("dim", "batch"), ("value", "1")]),
    gated(ET, "toolbox/et-export-dynamic-batch-partial.txt", "export", &["delegated_ratio >= 1=0.9091"], "et.partial_delegation",
        "partial-delegation", &[("not_delegated", "1"), ("compute_ops", "11"), ("ops", "aten_view_copy_default")]),
    gated(ET, "toolbox/et-profile-over-budget.txt", "latency", &["p50_ms <= 0.001=0.0173"], "perf.latency_over_budget",
        "latency-over-budget", &[("threads", "1"), ("metric", "p50_ms"), ("threshold", "0.001")]),
    case(ET, "toolbox/et-run-nhwc-input.txt", "et.xnnpack_shape_propagation", "input-contract",
        &[("status", "xnn_status_invalid_parameter"), ("instruction", "0"), ("error_code", "0x1")]),
    case(ET, "toolbox/et-run-nhwc-input--tail.txt", "et.execute_failed", "runtime-error", &[("error_code", "0x1")]),
    case(ORT, "toolbox/ort-inspect-external-data-missing--checker-line.txt", "onnx.checker_external_data", "missing-external-data",
        &[("tensor", "features.0.weight"), ("data_file", "build/model.onnx.data")]),
    // ---- DeployBench's faults (real toolbox output, tests/data/toolbox; README of each example)
    gated(ORT, "toolbox/ort-run-input-dtype.txt", "int8 runs", &["ran == 1=missing"], "run.input_dtype", "input-preprocessing",
        &[("index", "0"), ("file", "infer.py"), ("function", "run_inputs"), ("input", "image"), ("got", "float64"), ("expected", "float32")]),
    gated(ET, "toolbox/et-run-input-dtype.txt", "fp32 runs", &["ran == 1=missing"], "run.input_dtype", "input-preprocessing",
        &[("file", "infer.py"), ("got", "float64"), ("expected", "float32")]),
    gated(ET, "toolbox/et-run-input-layout.txt", "int8 runs", &["ran == 1=missing"], "run.input_layout_nchw", "input-preprocessing",
        &[("file", "infer.py"), ("function", "run_inputs"), ("input", "image"), ("got", "(1, 8, 8, 1)"), ("expected", "(1, 1, 8, 8)")]),
    gated(ORT, "toolbox/et-run-input-layout.txt", "int8 runs", &["ran == 1=missing"], "run.input_layout_nchw", "input-preprocessing",
        &[("expected", "(1, 1, 8, 8)")]),
    gated(ORT, "synthetic/run-input-layout-nhwc.txt", "fp32 runs", &["ran == 1=missing"], "run.input_layout_nhwc", "input-preprocessing",
        &[("file", "app.py"), ("function", "frames"), ("input", "pixels"), ("expected", "(1, 32, 32, 3)")]),
    gated(ET, "synthetic/run-input-layout-nhwc.txt", "fp32 runs", &["ran == 1=missing"], "run.input_layout_nhwc", "input-preprocessing",
        &[("got", "(1, 3, 32, 32)")]),
    // Only one order of the axes gives the artifact's (a dynamic batch stays in place): it is named.
    gated(ORT, "synthetic/run-input-layout-axes.txt", "fp32 runs", &["ran == 1=missing"], "run.input_layout_axes", "input-preprocessing",
        &[("file", "collar/service.py"), ("function", "BehaviourService.window"), ("input", "imu"), ("expected", "(batch, 6, 64)"), ("axes", "0, 2, 1")]),
    gated(ET, "synthetic/run-input-layout-axes.txt", "fp32 runs", &["ran == 1=missing"], "run.input_layout_axes", "input-preprocessing",
        &[("got", "(1, 64, 6)"), ("axes", "0, 2, 1")]),
    gated(ORT, "synthetic/run-input-layout-other.txt", "fp32 runs", &["ran == 1=missing"], "run.input_layout", "input-preprocessing",
        &[("index", "1"), ("input", "frames"), ("hint", "the same sizes in another order (a transposed layout)")]),
    gated(ET, "synthetic/run-input-layout-other.txt", "fp32 runs", &["ran == 1=missing"], "run.input_layout", "input-preprocessing",
        &[("expected", "(1, 16, 40)")]),
    gated(ORT, "toolbox/ort-inspect-fixed-dim.txt", "opset, external data and dims", &["dynamic_dims_ok == 1=0.0000"],
        "shape.fixed_dim", "dynamic-shape",
        &[("file", "infer.py"), ("input", "frames"), ("sizes", "6, 11, 16, 23, 32"), ("dim", "1"), ("option", "dynamic_seq"), ("fixed", "16")]),
    gated(ET, "toolbox/ort-inspect-fixed-dim.txt", "fp32 delegation and dims", &["dynamic_dims_ok == 1=0.0000"],
        "shape.fixed_dim", "dynamic-shape", &[("option", "dynamic_seq")]),
    gated(ORT, "toolbox/ort-inspect-fixed-dim-2.txt", "opset, external data and dims", &["dynamic_dims_ok == 1=0.0000"],
        "shape.fixed_dim_any", "dynamic-shape",
        &[("file", "monitor.py"), ("input", "signal"), ("dim", "2"), ("dims_json", "[\"signal:2:512\"]"), ("fixed", "128")]),
    // The line is feed.py's, the same on both targets.
    gated(ET, "toolbox/ort-inspect-fixed-dim-2.txt", "fp32 delegation and dims", &["dynamic_dims_ok == 1=0.0000"],
        "shape.fixed_dim_any", "dynamic-shape", &[("dims_json", "[\"signal:2:512\"]")]),
    gated(ORT, "synthetic/inspect-fixed-dim-other.txt", "opset, external data and dims", &["dynamic_dims_ok == 1=0.0000"],
        "shape.fixed_dim_other", "dynamic-shape", &[("dim", "2"), ("fixed", "28")]),
    gated(ET, "synthetic/inspect-fixed-dim-other.txt", "fp32 delegation and dims", &["dynamic_dims_ok == 1=0.0000"],
        "shape.fixed_dim_other", "dynamic-shape", &[("sizes", "24, 28, 32")]),
    gated(ET, "toolbox/et-inspect-mean-not-delegated.txt", "fp32 delegation and dims", &["delegation_ok == 1=0.0000"],
        "et.partial_delegation", "partial-delegation", &[("not_delegated", "1"), ("compute_ops", "12"), ("ops", "aten_mean_dim")]),
    gated(ORT, "toolbox/ort-profile-fp32-over-budget.txt", "latency", &["within_budget == 1=0.0000"], "perf.fp32_over_budget",
        "latency-over-budget", &[("artifact", "build/model.onnx"), ("threshold", "0.4"), ("int8_artifact", "build/model_int8.onnx")]),
    gated(ET, "toolbox/et-profile-fp32-over-budget.txt", "latency", &["within_budget == 1=0.0000"], "perf.fp32_over_budget",
        "latency-over-budget", &[("artifact", "build/model.pte"), ("threshold", "0.4"), ("int8_artifact", "build/model_int8.pte")]),
    // A project that ships FP32 builds no INT8 artifact (the contract's INT8 checks have a
    // `when`), so profile has nothing to compare with and names int8_formats.
    gated(ORT, "toolbox/ort-profile-fp32-over-budget-no-int8.txt", "latency", &["within_budget == 1=0.0000"],
        "perf.fp32_over_budget_no_int8", "latency-over-budget", &[("artifact", "build/model.onnx"), ("threshold", "0.18")]),
    gated(ET, "toolbox/et-profile-fp32-over-budget-no-int8.txt", "latency", &["within_budget == 1=0.0000"],
        "perf.fp32_over_budget_no_int8", "latency-over-budget", &[("artifact", "build/model.pte"), ("threshold", "0.5")]),
    gated(ET, "toolbox/et-run-input-not-contiguous.txt", "fp32 runs", &["inputs_contiguous == 1=0.0000"], "run.input_not_contiguous",
        "input-preprocessing", &[("file", "app/camera.py"), ("function", "Camera.frame"), ("input", "image")]),
    gated(ORT, "toolbox/ort-inspect-int8-calibration-scale.txt", "int8 artifact", &["calibration_ok == 1=0.0000"],
        "quant.calibration_scale", "calibration-data",
        &[("outside", "64"), ("file", "pipeline/quant_inputs.py"), ("function", "calibration_cases")]),
    // The same line when the calibration path reads through the wrong one of two sibling methods
    // (aipc_toolbox/calib_sibling.py; toolbox/tests/check_calib_sibling.py's store project).
    gated(ORT, "toolbox/ort-inspect-int8-calibration-sibling.txt", "int8 artifact", &["calibration_ok == 1=0.0000"],
        "quant.calibration_sibling", "calibration-data",
        &[("owner", "Store"), ("method", "words"), ("sibling", "values"), ("file", "calibstore.py"), ("line", "41"),
          ("function", "calibration"), ("outside_before", "4"), ("outside_after", "0")]),
    gated(ET, "toolbox/et-inspect-int8-calibration-sibling.txt", "int8 artifact", &["calibration_ok == 1=0.0000"],
        "quant.calibration_sibling", "calibration-data",
        &[("method", "words"), ("sibling", "values"), ("line", "41")]),
    // The same line when the project's own function that prepares the eval inputs brings the set
    // into range (aipc_toolbox/calib_prep.py): the biopsy-resmlp project, both targets.
    gated(ORT, "toolbox/ort-inspect-int8-calibration-prep.txt", "int8 artifact", &["calibration_ok == 1=0.0000"],
        "quant.calibration_prep", "calibration-data",
        &[("prep", "pipeline.cohort:zscore"), ("prep_file", "pipeline/cohort.py"), ("prep_line", "24"),
          ("file", "pipeline/quant_inputs.py"), ("function", "calibration_cases"), ("outside", "64"), ("outside_after", "2")]),
    gated(ET, "toolbox/et-inspect-int8-calibration-prep.txt", "int8 artifact", &["calibration_ok == 1=0.0000"],
        "quant.calibration_prep", "calibration-data",
        &[("prep", "pipeline.cohort:zscore"), ("reference", "eval inputs")]),
    // The step as a method of a fitted object the data module holds (toolbox/tests/check_calib_prep.py's
    // scaler project): the setting names its attribute path.
    gated(ORT, "toolbox/ort-inspect-int8-calibration-prep-method.txt", "int8 artifact", &["calibration_ok == 1=0.0000"],
        "quant.calibration_prep", "calibration-data",
        &[("prep", "prep_data_0:SCALER.transform"), ("prep_file", "prep_data_0.py"), ("prep_line", "14"),
          ("function", "calibration")]),
    // ---- INT8 mixed precision (int8_sensitivity; toolbox/targets/common/int8-mixed-precision.toml;
    // toolbox/tests/check_int8_sensitivity.py)
    gated(ORT, "toolbox/ort-inspect-int8-float-nodes-chosen.txt", "int8 artifact", &["int8_float_nodes_match == 1=0.0000"],
        "quant.int8_float_nodes_chosen", "quantization-accuracy",
        &[("count", "3"), ("nodes", r#"["node_linear_3", "node_linear_4", "node_relu_3"]"#)]),
    gated(ORT, "toolbox/ort-inspect-int8-float-nodes-stale.txt", "int8 artifact", &["int8_float_nodes_match == 1=0.0000"],
        "quant.int8_float_nodes_stale", "stale-artifact", &[("nodes", r#"["node_linear_4"]"#)]),
    case(ORT, "toolbox/ort-int8-sensitivity-no-mixed-precision.txt", "quant.int8_no_mixed_precision", "quantization-accuracy",
        &[("count", "3"), ("report", "build/int8_sensitivity.json")]),
    gated(ET, "toolbox/et-inspect-int8-float-nodes-chosen.txt", "int8 artifact", &["int8_float_nodes_match == 1=0.0000"],
        "quant.int8_float_nodes_chosen", "quantization-accuracy",
        &[("count", "3"), ("nodes", r#"["linear_3", "linear_4", "relu_3"]"#)]),
    gated(ET, "toolbox/et-inspect-int8-float-nodes-stale.txt", "int8 artifact", &["int8_float_nodes_match == 1=0.0000"],
        "quant.int8_float_nodes_stale", "stale-artifact", &[("nodes", r#"["linear_4"]"#)]),
    case(ET, "toolbox/et-int8-sensitivity-no-mixed-precision.txt", "quant.int8_no_mixed_precision", "quantization-accuracy",
        &[("count", "3"), ("report", "build/int8_sensitivity.json")]),
    // ---- The project's model function (aipc_toolbox/envcheck.py; toolbox/targets/common/env.toml)
    gated(ORT, "toolbox/ort-env-model-not-deterministic.txt", "toolchain and project load", &["eager_deterministic == 1=0.0000"],
        "env.model_not_deterministic", "project-model", &[("file", "net.py"), ("function", "build_net")]),
    gated(ET, "toolbox/et-env-model-not-deterministic.txt", "toolchain and project load", &["eager_deterministic == 1=0.0000"],
        "env.model_not_deterministic", "project-model", &[("file", "net.py"), ("function", "build_net")]),
    // ---- The app's own path (compare with app_eval_data; toolbox/targets/common/app-path.toml;
    // toolbox/tests/check_app_path.py)
    gated(ORT, "toolbox/ort-compare-app-path-drop.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.accuracy_drop", "input-preprocessing",
        &[("file", "app.py"), ("line", "10"), ("function", "Reader.prepare"), ("drop", "+77.08"),
          ("app_stats", "range [0, 0.06275], mean 0.02839, std 0.01863")]),
    gated(ET, "toolbox/et-compare-app-path-drop.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.accuracy_drop", "input-preprocessing",
        &[("file", "app.py"), ("function", "Reader.prepare"), ("eval_stats", "range [0, 1], mean 0.4525, std 0.2969")]),
    // The same with the affine line (another scale): the measured map, and the input it is for.
    gated(ORT, "toolbox/ort-compare-app-path-affine.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.affine_feed", "input-preprocessing",
        &[("input", "x"), ("file", "app.py"), ("line", "10"), ("function", "Reader.prepare"), ("map", "x 15.9375 + 0"),
          ("kind", "scalar")]),
    gated(ET, "toolbox/et-compare-app-path-affine.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.affine_feed", "input-preprocessing",
        &[("input", "x"), ("function", "Reader.prepare"), ("kind", "per-channel"), ("residual", "0.00")]),
    // The app skips a step of eval_data's own path: the step, where it is, and how the app reaches it.
    gated(ORT, "toolbox/ort-compare-app-path-skipped-step.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.skipped_step", "input-preprocessing",
        &[("input", "x"), ("file", "app.py"), ("line", "10"), ("function", "Reader.prepare"), ("step", "unpack"),
          ("step_file", "net.py"), ("called_at", "net.py:70"), ("via", "net:unpack")]),
    gated(ET, "toolbox/et-compare-app-path-skipped-step.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.skipped_step", "input-preprocessing",
        &[("input", "x"), ("function", "Reader.prepare"), ("residual", "0.00"), ("via", "net:unpack")]),
    // The app makes its input with its own copy of a step that diverged from eval_data's.
    gated(ORT, "toolbox/ort-compare-app-path-diverged-step.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.diverged_step", "input-preprocessing",
        &[("input", "x"), ("file", "app.py"), ("line", "22"), ("function", "stale_unpack"), ("step", "unpack"),
          ("called_at", "net.py:70"), ("via", "net:unpack")]),
    gated(ET, "toolbox/et-compare-app-path-diverged-step.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.diverged_step", "input-preprocessing",
        &[("function", "stale_unpack"), ("residual", "0.00"), ("via", "net:unpack")]),
    // ... and when that function is given a record, the step takes its fields by name.
    gated(ORT, "toolbox/ort-compare-app-path-diverged-record.txt", "app path", &["app_path_ok == 1=0.0000"],
        "app.diverged_step", "input-preprocessing",
        &[("input", "x"), ("file", "app.py"), ("line", "16"), ("function", "Reader.prepare"),
          ("taken", "packet.sent, packet.offset"), ("step", "calibrated"), ("via", "net:calibrated")]),
    // ExecuTorch's compare names a non-contiguous app feed where it is built (not the runtime's error).
    gated(ET, "toolbox/et-compare-app-path-not-contiguous.txt", "app path", &["app_path_ok == 1=0.0000"],
        "run.input_not_contiguous", "input-preprocessing",
        &[("input", "x"), ("file", "app.py"), ("function", "Reader.prepare"), ("got", "(8, 12)")]),
    // ---- an artifact that is not there names the tool that writes it (common/artifacts.toml)
    case(ET, "toolbox/et-inspect-int8-missing.txt", "artifact.int8_missing", "missing-artifact",
        &[("artifact", "build/model_int8.pte")]),
    case(ORT, "toolbox/ort-inspect-int8-missing.txt", "artifact.int8_missing", "missing-artifact",
        &[("artifact", "build/model_int8.onnx")]),
    case(ORT, "toolbox/ort-run-fp32-missing.txt", "artifact.missing", "missing-artifact",
        &[("artifact", "build/model.onnx")]),
    case(ET, "toolbox/ort-run-fp32-missing.txt", "artifact.missing", "missing-artifact",
        &[("artifact", "build/model.onnx")]),
    // ---- INT8 formats (toolbox/targets/common/int8-formats.toml; toolbox/tests/check_int8_formats.py)
    gated(ORT, "toolbox/ort-profile-int8-over-budget.txt", "latency", &["within_budget == 1=0.0000"], "perf.int8_over_budget",
        "latency-over-budget", &[("artifact", "build/model_int8.onnx"), ("format", "qdq-s8s8"), ("threshold", "0.0001")]),
    gated(ORT, "toolbox/ort-inspect-int8-format-chosen.txt", "int8 artifact", &["int8_format_matches == 1=0.0000"], "perf.int8_format_chosen",
        "latency-over-budget", &[("format", "dynamic-matmul"), ("wanted", "qdq-s8s8")]),
    gated(ORT, "toolbox/ort-inspect-int8-stale.txt", "int8 artifact", &["int8_format_matches == 1=0.0000"], "perf.int8_artifact_stale",
        "stale-artifact", &[("built", "qdq-s8s8"), ("format", "dynamic-matmul")]),
    case(ORT, "toolbox/ort-int8-formats-faster-format.txt", "perf.int8_format",
        "latency-over-budget", &[("format", "dynamic-matmul"), ("measured", "0.0809"), ("fp32_measured", "0.1994")]),
    case(ORT, "toolbox/ort-int8-formats-not-faster.txt", "perf.int8_not_faster", "latency-over-budget", &[]),
    case(ORT, "toolbox/ort-int8-formats-none-within-budget.txt", "perf.no_int8_format_within_budget",
        "latency-over-budget", &[("format", "dynamic-matmul"), ("threshold", "0.01")]),
    gated(ET, "toolbox/et-profile-int8-over-budget.txt", "latency", &["within_budget == 1=0.0000"], "perf.int8_over_budget",
        "latency-over-budget", &[("artifact", "build/model_int8.pte"), ("format", "static-channel")]),
    case(ET, "toolbox/et-int8-formats.txt", "perf.int8_format", "latency-over-budget", &[("format", "dynamic-channel")]),
    gated(ET, "toolbox/et-inspect-int8-after-formats.txt", "int8 artifact", &["int8_format_matches == 1=0.0000"], "perf.int8_format_chosen",
        "latency-over-budget", &[("format", "dynamic-channel"), ("wanted", "static-channel")]),
    gated(ET, "toolbox/et-inspect-int8-stale.txt", "int8 artifact", &["int8_format_matches == 1=0.0000"], "perf.int8_artifact_stale",
        "stale-artifact", &[("built", "static-channel"), ("format", "static-tensor")]),
    case(ET, "toolbox/et-int8-formats-not-faster.txt", "perf.int8_not_faster", "latency-over-budget", &[]),
    // The decision lines are printed by the code both targets share (aipc_toolbox/int8_choice.py).
    case(ET, "toolbox/ort-int8-formats-none-within-budget.txt", "perf.no_int8_format_within_budget",
        "latency-over-budget", &[("format", "dynamic-matmul")]),
    // ---- the toolbox helper's recorded outputs (tests/data/toolchain-outputs)
    case(ET, "toolchain-outputs/digits-branchy.executorch-xnnpack.export.txt", "export.data_dependent_guard",
        "data-dependent-control-flow", &[("expression", "Eq(u0, 1)"), ("file", "model.py"), ("line", "27"), ("code", "if image.mean() > 0.5:")]),
    case(ORT, "toolchain-outputs/digits-branchy.onnxruntime-cpu.export.txt", "export.data_dependent_guard",
        "data-dependent-control-flow", &[("file", "model.py"), ("line", "27"), ("function", "forward")]),
    case(ET, "toolchain-outputs/digits-unsupported-op.executorch-xnnpack.export.txt", "export.rewritable_op",
        "unsupported-operator", &[("ops", "aten.median.dim"), ("ops_json", "[\"aten.median.dim\"]")]),
    case(ORT, "toolchain-outputs/digits-unsupported-op.onnxruntime-cpu.export.txt", "export.rewritable_op",
        "unsupported-operator", &[("ops", "aten.median.dim"), ("ops_json", "[\"aten.median.dim\"]")]),
    case(ET, "probes/et_rw--partial-delegation-mean-dim.txt", "export.rewritable_op",
        "unsupported-operator", &[("ops", "aten.mean.dim")]),
    case(ET, "probes/et_rw--partial-delegation-avg-pool2d.txt", "export.rewritable_op",
        "unsupported-operator", &[("ops", "aten.avg_pool2d.default")]),
    // A normalised embedding times normalised class vectors: the vector norm's sum and pow, its
    // expand, and the product with a computed matrix, as the delegation report spells them.
    case(ET, "probes/et_rw--partial-delegation-vector-norm-mm.txt", "export.rewritable_op",
        "unsupported-operator", &[("ops", "aten.expand.default, aten.mm.default, aten.pow.Tensor_Scalar, aten.sum.dim_IntList")]),
    case(ET, "probes/et_rw--partial-delegation-cumsum.txt", "export.rewritable_op",
        "unsupported-operator", &[("ops", "aten.cumsum.default")]),
    // A 1-D CNN's pools: torch's lowering of max_pool1d/adaptive_avg_pool1d leaves its
    // unsqueeze/squeeze copies (and the pool between them) undelegated; the line names the 1-D ops.
    case(ET, "probes/et_rw--partial-delegation-pool1d.txt", "export.rewritable_op",
        "unsupported-operator", &[("ops", "aten.max_pool1d.default, aten.adaptive_avg_pool1d.default")]),
    // Without the toolbox's line (the toolchain alone), the generic operator signatures.
    case(ORT, "probes/onnx_rw--no-onnx-function-median-dim.txt", "onnx.no_function",
        "unsupported-operator", &[("op", "aten.median"), ("overload", "dim")]),
    // torch.onnx names cumprod's decomposition, not cumprod.
    case(ORT, "probes/onnx_rw--no-onnx-function-cumprod.txt", "onnx.no_function",
        "unsupported-operator", &[("op", "prims.prod"), ("overload", "default")]),
    case(ET, "probes/et_rw--kthvalue-non-core-aten.txt", "edge.non_core_aten",
        "unsupported-operator", &[]),
    // A fraction of the set unprepared (the project's step brings exactly those into range), and a
    // set that mixes prepared and raw inputs (the step on every sample pushes the prepared out).
    case(ORT, "probes/onnx_calib--unprepared-fraction.txt", "quant.calibration_prep_outside",
        "calibration-data", &[("outside", "20"), ("samples", "64"), ("prep", "prep_data_0:standardise"),
            ("file", "prep_data_0.py"), ("function", "calibration"), ("prep_line", "10")]),
    case(ET, "probes/et_calib--unprepared-fraction.txt", "quant.calibration_prep_outside",
        "calibration-data", &[("outside", "20"), ("prep", "prep_data_0:standardise")]),
    case(ORT, "probes/onnx_calib--mixed-prepared-and-raw.txt", "quant.calibration_prep",
        "calibration-data", &[("prep", "prep_data_0:to_model_units"), ("prep_outside", "prep_data_0:to_model_units"),
            ("outside", "40"), ("outside_after", "24")]),
    // A fraction on another unit whose conversion takes the loaded record (no array step to
    // apply): the calibration function that calls the loader without it (an outside project's
    // real quantize output).
    case(ET, "probes/et_calib--loader-step-skipped.txt", "quant.calibration_loader_step",
        "calibration-data", &[("outside", "3"), ("samples", "9"), ("loader", "bandlab.recordings:load"),
            ("step", "bandlab.units:to_g"), ("step_file", "bandlab/units.py"), ("step_line", "8"),
            ("eval_file", "bandlab/data.py"), ("eval_line", "20"), ("eval_function", "session_windows"),
            ("file", "deploy/calib_sets.py"), ("line", "25"), ("function", "CalibrationSet._stream")]),
    case(ORT, "probes/et_calib--loader-step-skipped.txt", "quant.calibration_loader_step",
        "calibration-data", &[("function", "CalibrationSet._stream")]),
    // Every sample on the right scale but drawn from one narrow part of the data (the head of a
    // log recorded in one regime): most eval inputs lie beyond it (an outside project's real
    // quantize output).
    case(ORT, "probes/onnx_calib--coverage-one-regime.txt", "quant.calibration_coverage",
        "calibration-data", &[("beyond", "229"), ("reference_samples", "400"), ("reference", "eval inputs"),
            ("calibration_max_abs", "0.2449"), ("reference_median_max_abs", "0.776"),
            ("file", "ridesense/windows.py"), ("function", "calibration_windows")]),
    case(ET, "probes/onnx_calib--coverage-one-regime.txt", "quant.calibration_coverage",
        "calibration-data", &[("function", "calibration_windows")]),
    case(ORT, "toolchain-outputs/digits-calib-outlier-calib-scale.onnxruntime-cpu.quantize.txt", "quant.calibration_scale",
        "calibration-data", &[("outside", "64"), ("samples", "64"), ("reference", "eval inputs"), ("ratio", "16")]),
    case(ET, "toolchain-outputs/digits-calib-outlier-calib-scale.executorch-xnnpack.quantize.txt", "quant.calibration_scale",
        "calibration-data", &[("median_max_abs", "16.0"), ("reference_max_abs", "1.0")]),
    // ---- the contracts' other gates
    gated(ORT, "synthetic/run-non-finite.txt", "int8 runs", &["finite == 1=0.0000"], "run.non_finite", "non-finite-output",
        &[("check", "int8 runs"), ("metric", "finite")]),
    gated(ET, "synthetic/run-non-finite.txt", "fp32 runs", &["finite == 1=0.0000"], "run.non_finite", "non-finite-output",
        &[("metric", "finite")]),
    gated(ORT, "synthetic/report-artifacts.txt", "artifacts", &["artifacts >= 3=2.0000"], "report.artifacts_missing",
        "missing-artifacts", &[("measured", "2.0000")]),
    gated(ET, "synthetic/report-artifacts.txt", "artifacts", &["artifacts >= 4=2.0000"], "report.artifacts_missing",
        "missing-artifacts", &[("threshold", "4")]),
    gated(ORT, "synthetic/inspect-int8-not-quantized.txt", "int8 artifact", &["qdq_nodes >= 1=0.0000"], "quant.not_quantized",
        "quantization-failed", &[("metric", "qdq_nodes")]),
    gated(ET, "synthetic/inspect-int8-not-quantized.txt", "int8 artifact", &["quantized == 1=0.0000"], "quant.not_quantized",
        "quantization-failed", &[("metric", "quantized")]),
    gated(ORT, "synthetic/inspect-checker-failed.txt", "onnx artifact", &["checker_ok == 1=0.0000"], "onnx.checker_failed",
        "invalid-graph", &[("metric", "checker_ok")]),
    gated(ET, "synthetic/inspect-pte-bad.txt", "pte artifact", &["file_identifier_ok == 1=0.0000", "delegation_known == 1=0.0000"],
        "et.bad_artifact_gate", "bad-artifact", &[("metric", "file_identifier_ok")]),
    gated(ET, "synthetic/compare-metrics-only.txt", "fp32 delegation", &["delegation_ok == 1=0.0000"], "et.delegation_gate",
        "partial-delegation", &[("metric", "delegation_ok")]),
    case(ET, "toolbox/et-env-toolchain-incomplete.txt", "env.toolchain_incomplete", "toolchain-broken",
        &[("missing", "executorch.exir: ModuleNotFoundError: No module named 'executorch'; executorch.runtime: ModuleNotFoundError: No module named 'executorch'; torchao: ModuleNotFoundError: No module named 'torchao'")]),
    case(ORT, "toolbox/et-env-toolchain-incomplete.txt", "env.toolchain_incomplete", "toolchain-broken", &[]),
    // ---- environment (shared table; messages quoted in reference §2.2, §5)
    case(ORT, "synthetic/env-torch-no-deps.txt", "env.torch_cuda_libs_missing", "toolchain-broken", &[("so", "libcudart.so.13")]),
    case(ET, "synthetic/env-torch-no-deps.txt", "env.torch_cuda_libs_missing", "toolchain-broken", &[("so", "libcudart.so.13")]),
    case(ET, "synthetic/env-qnn-download.txt", "env.qnn_sdk_missing", "toolchain-broken", &[]),
    case(ORT, "synthetic/env-qnn-download.txt", "env.qnn_sdk_missing", "toolchain-broken", &[]),
    case(ORT, "synthetic/env-module-missing.txt", "env.module_missing", "missing-module", &[("module", "sklearn")]),
    case(ET, "synthetic/env-module-missing.txt", "env.module_missing", "missing-module", &[("module", "sklearn")]),
    // ---- QAIRT (messages quoted in reference §3.3)
    case(QAIRT, "qairt/dynamic-input.txt", "qairt.dynamic_input", "dynamic-shape", &[("inputs", "'input'")]),
    case(QAIRT, "qairt/op-validation-0xc26.txt", "qairt.op_validation", "unsupported-operator",
        &[("op", "/model.23/Mod"), ("error_code", "0xc26")]),
    case(QAIRT, "qairt/op-validation-3110.txt", "qairt.op_validation", "unsupported-operator", &[("code", "3110")]),
    case(QAIRT, "qairt/unsupported-einsum.txt", "qairt.unsupported_op", "unsupported-operator", &[("op", "Einsum")]),
    case(QAIRT, "qairt/tensor-mismatch.txt", "qairt.tensor_type_mismatch", "dtype-mismatch", &[("got", "0x32"), ("expected", "0x216")]),
    case(QAIRT, "qairt/ort-qnn-ep-batchnorm.txt", "qairt.ort_qnn_ep", "unsupported-operator", &[]),
    case(QAIRT, "qairt/graph-finalize.txt", "qairt.graph_finalize", "graph-finalize", &[("graph_id", "1"), ("code", "1002")]),
    case(QAIRT, "qairt/vtcm.txt", "qairt.vtcm", "memory", &[("required", "0x2400000"), ("available", "0x800000")]),
    case(QAIRT, "qairt/mem-too-large.txt", "qairt.mem_too_large", "memory", &[("required_kb", "3145728"), ("limit_kb", "2097152")]),
    case(QAIRT, "qairt/ctx-version.txt", "qairt.ctx_version", "context-binary", &[("index", "0"), ("code", "5000")]),
    case(QAIRT, "qairt/ctx-interpret.txt", "qairt.ctx_interpret", "context-binary", &[("code", "30010")]),
    case(QAIRT, "qairt/htp-transport.txt", "qairt.htp_transport", "device-setup", &[("code", "1008")]),
    case(QAIRT, "qairt/fp16-unsupported.txt", "qairt.fp16_unsupported", "precision", &[]),
    case(QAIRT, "qairt/snpe-layer-invalid.txt", "qairt.snpe_layer_invalid", "unsupported-operator", &[("op", "conv_1"), ("code", "3110")]),
    case(QAIRT, "qairt/dsp-unavailable.txt", "qairt.dsp_unavailable", "device-setup", &[]),
    case(QAIRT, "qairt/model-not-found.txt", "qairt.model_not_found", "bad-artifact", &[("model", "model.onnx")]),
    case(QAIRT, "qairt/cpp-ext.txt", "qairt.cpp_ext", "bad-artifact", &[("path", "model.cpp")]),
    case(QAIRT, "qairt/qnn-sdk-missing.txt", "env.qnn_sdk_missing", "toolchain-broken", &[]),
    case(QAIRT, "qairt/qairt-sdk-root-unset.txt", "qairt.sdk_missing", "toolchain-broken", &[]),
    gated(QAIRT, "qairt/int8-accuracy-gate.txt", "int8 matches eager", &["top1_agreement >= 0.98=0.9667", "acc_drop_points <= 1=1.1111"],
          "qairt.int8_accuracy", "quantization-accuracy", &[("act_bw", "16"), ("weight_bw", "4"), ("metric", "top1_agreement")]),
    gated(QAIRT, "qairt/latency-over-budget.txt", "latency", &["within_budget == 1=0.0000"],
          "qairt.latency_over_budget", "latency", &[("artifact", "build/qnn/int8/output/model_int8.bin"), ("p50_ms", "5.030"), ("budget_ms", "2.0")]),
    case(QAIRT, "qairt/warning-not-blocker.txt", "qairt.warning_not_blocker", "not-a-blocker", &[("warning", "MaxPool: unsupported version")]),
    // ---- silent failures: partial delegation, latency
    gated(ET, "synthetic/inspect-partial-delegation.txt", "delegation", &["delegated_ratio >= 0.9=0.6250"],
        "et.partial_delegation", "partial-delegation",
        &[("not_delegated", "3"), ("compute_ops", "8"), ("ops", "aten_topk_default, aten_cumsum_default, aten_sort_default")]),
    gated(ET, "probes/et_fail--partial-delegation-table.txt", "delegation", &["p50_ms <= 1.0=1.7900"],
        "et.partial_delegation_table", "partial-delegation", &[("op", "aten_cumsum_default"), ("occurrences", "1")]),
    gated(ET, "synthetic/compare-metrics-only.txt", "delegation", &["delegated_ratio >= 0.9=missing"],
        "et.delegation_gate", "partial-delegation", &[("metric", "delegated_ratio")]),
    gated(ORT, "synthetic/profile-over-budget.txt", "latency", &["p50_ms <= 5.0=7.3100"], "perf.latency_over_budget",
        "latency-over-budget", &[("threads", "1"), ("metric", "p50_ms"), ("threshold", "5.0"), ("measured", "7.3100")]),
    gated(ET, "synthetic/profile-over-budget.txt", "latency", &["within_budget == 1=0.0000"], "perf.latency_over_budget",
        "latency-over-budget", &[("threads", "1"), ("metric", "within_budget")]),
];

fn failure(case: &Case) -> Failure {
    let path = root().join("tests/data").join(case.fixture);
    let log = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Failure {
        failed_check: format!("{}: failed", case.check),
        check: case.check.into(),
        exit_code: Some(if case.gates.is_empty() { 1 } else { 0 }),
        log,
        gate_failures: case.gates.iter().map(|g| g.to_string()).collect(),
    }
}

#[test]
fn tables_load_with_unique_ids() {
    for target in TARGETS {
        let classifier = table(target);
        let mut seen = BTreeSet::new();
        for sig in classifier.signatures() {
            assert!(seen.insert(sig.id()), "{target}: duplicate id {}", sig.id());
            assert!(
                !sig.fixes().is_empty(),
                "{target}: {} has no fixes",
                sig.id()
            );
        }
    }
    // The shared tables come first, in the order included.
    for target in [ORT, ET] {
        let ids: Vec<&str> = table(target).signatures().iter().map(|s| s.id()).collect();
        assert_eq!(ids[6], "export.data_dependent_guard");
        assert_eq!(
            ids[..6],
            [
                "env.toolchain_incomplete",
                "env.torch_cuda_libs_missing",
                "env.qnn_sdk_missing",
                "env.model_not_deterministic",
                "artifact.int8_missing",
                "artifact.missing"
            ]
        );
    }
}

#[test]
fn every_fixture_gets_its_signature_class_and_facts() {
    let mut wrong = Vec::new();
    for case in &all_cases() {
        let ev = table(case.target).classify(&failure(case), true);
        let mut problems = Vec::new();
        if ev.signature != case.id {
            problems.push(format!("signature {} (want {})", ev.signature, case.id));
        }
        if ev.class.as_deref() != Some(case.class) {
            problems.push(format!("class {:?} (want {})", ev.class, case.class));
        }
        for (key, want) in case.facts {
            match ev.facts.get(*key) {
                Some(got) if got == want => {}
                got => problems.push(format!("fact {key} = {got:?} (want {want:?})")),
            }
        }
        if ev.candidate_fixes.is_empty() {
            problems.push("no candidate fixes".into());
        }
        if !problems.is_empty() {
            wrong.push(format!(
                "{} [{}]: {}\n    facts: {:?}",
                case.fixture,
                case.target,
                problems.join("; "),
                ev.facts
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// Every case, plus onnxruntime-cpu's cases again on qairt-qnn for the signatures qairt-qnn
/// includes from the shared tables (its export is onnxruntime-cpu's: the same messages).
fn all_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = CASES.to_vec();
    let qairt_ids: BTreeSet<String> = table(QAIRT)
        .signatures()
        .iter()
        .map(|s| s.id().to_string())
        .collect();
    let own: BTreeSet<&str> = CASES
        .iter()
        .filter(|c| c.target == QAIRT)
        .map(|c| c.id)
        .collect();
    for case in CASES.iter().filter(|c| c.target == ORT) {
        if qairt_ids.contains(case.id) && !own.contains(case.id) {
            cases.push(Case {
                target: QAIRT,
                ..case.clone()
            });
        }
    }
    cases
}

#[test]
fn every_signature_is_exercised_by_a_fixture() {
    for target in TARGETS {
        let cases = all_cases();
        let hit: BTreeSet<&str> = cases
            .iter()
            .filter(|c| c.target == target)
            .map(|c| c.id)
            .collect();
        let missing: Vec<String> = table(target)
            .signatures()
            .iter()
            .map(|s| s.id().to_string())
            .filter(|id| !hit.contains(id.as_str()))
            .collect();
        assert!(missing.is_empty(), "{target}: no fixture for {missing:?}");
    }
}

#[test]
fn unknown_logs_get_a_stable_fallback_signature() {
    for target in TARGETS {
        let classifier = table(target);
        let log = std::fs::read_to_string(root().join("tests/data/synthetic/unknown-failure.txt"))
            .unwrap();
        let failure = |log: String| Failure {
            failed_check: "export runs: exit code 1, expected 0".into(),
            check: "export runs".into(),
            exit_code: Some(1),
            log,
            gate_failures: vec![],
        };
        let a = classifier.classify(&failure(log.clone()), true);
        let b = classifier.classify(&failure(log.replace("line 12", "line 40")), true);
        assert_eq!(a.class, None, "{target}: {}", a.signature);
        assert!(a.candidate_fixes.is_empty());
        assert_eq!(a.signature, b.signature, "line numbers must not change it");
        assert!(
            a.signature
                .starts_with("check:export runs|exit:1|FileNotFoundError"),
            "{}",
            a.signature
        );
        // A gate no signature knows: the fallback names the gate and its value.
        let gate = Failure {
            failed_check: "size: gates failed".into(),
            check: "size".into(),
            exit_code: Some(0),
            log: "{\"bytes\": 9000000}".into(),
            gate_failures: vec!["bytes <= 1000000=9000000.0000".into()],
        };
        let ev = classifier.classify(&gate, true);
        assert_eq!(ev.class, None);
        assert_eq!(
            ev.signature,
            "check:size|exit:0|bytes <= 1000000=9000000.0000"
        );
    }
}

#[test]
fn fixes_carry_the_facts() {
    let find = |fixture: &str, target: &str| {
        let case = CASES
            .iter()
            .find(|c| c.fixture == fixture && c.target == target)
            .unwrap();
        table(target).classify(&failure(case), true).candidate_fixes
    };
    let fixes = find("probes/et_fail--data-dependent-guard.txt", ET);
    assert!(
        fixes.iter().any(|f| f.starts_with(
            r#"fix_branch_to_where {"file": "et_fail.py", "line": 15, "function": "forward"}"#
        )),
        "{fixes:?}"
    );
    // No place in the log: only the project-wide call, no file name guessed.
    let fixes = find("probes/onnx_t--torch-export-error-step1.txt", ORT);
    assert!(
        fixes
            .iter()
            .any(|f| f.starts_with("fix_branch_to_where {}")),
        "{fixes:?}"
    );
    assert!(!fixes.iter().any(|f| f.contains("model.py")), "{fixes:?}");
    let fixes = find("synthetic/quantize-calibration-outlier.txt", ORT);
    assert!(
        fixes
            .iter()
            .any(|f| f.contains("drops calibration sample 17")),
        "{fixes:?}"
    );
    // A measured affine difference leaves a choice: apply the map, or rewrite the function.
    let fixes = find("toolbox/ort-compare-app-path-affine.txt", ORT);
    assert!(
        fixes[0].starts_with(r#"fix_input_feed {"input": "x", "value_range": true}"#)
            && fixes[0].contains("x 15.9375 + 0")
            && fixes[1].starts_with(
                r#"replace_function {"file": "app.py", "function": "Reader.prepare"}"#
            ),
        "{fixes:?}"
    );
    // No fix keeps a placeholder once classified with its facts.
    for case in CASES {
        let ev = table(case.target).classify(&failure(case), true);
        for fix in &ev.candidate_fixes {
            assert!(!fix.contains("${"), "{}: {fix}", case.fixture);
        }
    }
}

#[test]
fn control_arm_sees_no_classes() {
    let ev = table(ET).classify(&failure(&CASES[0]), false);
    assert_eq!(ev.class, None);
    assert!(ev.facts.is_empty() && ev.candidate_fixes.is_empty());
}

/// The skill names the fixes of every table point at (`load_skill <name>`).
fn named_skills() -> BTreeMap<String, String> {
    let mut named = BTreeMap::new();
    let targets = root().join("toolbox/targets");
    for entry in std::fs::read_dir(&targets).unwrap() {
        let path = entry.unwrap().path().join("signatures.toml");
        if !path.is_file() {
            continue;
        }
        let classifier = Classifier::load(&path).unwrap_or_else(|e| panic!("{e}"));
        for sig in classifier.signatures() {
            for fix in sig.fixes() {
                if let Some(rest) = fix.strip_prefix("load_skill ") {
                    let name = rest.split_whitespace().next().unwrap_or_default();
                    named.insert(
                        name.to_string(),
                        format!("{}: {}", path.display(), sig.id()),
                    );
                }
            }
        }
    }
    named
}

#[test]
fn every_skill_a_fix_names_exists() {
    let skills = SkillSet::load_dir(&root().join("skills")).unwrap_or_else(|e| panic!("{e}"));
    let named = named_skills();
    assert!(named.len() >= 8, "{named:?}");
    for (name, from) in &named {
        assert!(
            skills.get(name).is_some(),
            "{from} names `load_skill {name}`, but skills/{name}/SKILL.md does not exist"
        );
    }
}

#[test]
fn every_signature_a_skill_answers_exists() {
    let skills = SkillSet::load_dir(&root().join("skills")).unwrap_or_else(|e| panic!("{e}"));
    let mut ids = BTreeSet::new();
    for target in TARGETS {
        for sig in table(target).signatures() {
            ids.insert(sig.id().to_string());
        }
    }
    // The flows' targets (their fixtures: tests/split_flow.rs, tests/llm_flow.rs).
    for target in [
        "split-onnxruntime-cpu",
        "split-executorch-xnnpack",
        "llm-executorch-xnnpack",
    ] {
        let path = root()
            .join("toolbox/targets")
            .join(target)
            .join("signatures.toml");
        for sig in Classifier::load(&path)
            .unwrap_or_else(|e| panic!("{e}"))
            .signatures()
        {
            ids.insert(sig.id().to_string());
        }
    }
    for name in skills.names() {
        let skill = skills.get(name).unwrap();
        let Some(list) = skill.metadata.get("signatures") else {
            continue;
        };
        for id in list.split_whitespace() {
            assert!(
                ids.contains(id),
                "skill {name} answers unknown signature {id}"
            );
            assert!(
                skill.body.contains(id),
                "skill {name}: signature {id} is in metadata but not in the body's list"
            );
        }
    }
}

/// Print the evidence for the fixtures whose path contains `$SHOW`:
/// `SHOW=et_q cargo test --test classifier show -- --ignored --nocapture`.
#[test]
#[ignore = "debugging aid, not a test: prints the evidence of chosen fixtures and asserts nothing"]
fn show() {
    let want = std::env::var("SHOW").unwrap_or_default();
    for case in CASES.iter().filter(|c| c.fixture.contains(&want)) {
        let ev = table(case.target).classify(&failure(case), true);
        println!(
            "==== {} [{}]\n{}\n{:?}\n{:?}\n{}\n",
            case.fixture, case.target, ev.signature, ev.facts, ev.candidate_fixes, ev.excerpt
        );
    }
}

#[test]
fn the_first_skill_a_signature_names_lists_it() {
    let skills = SkillSet::load_dir(&root().join("skills")).unwrap_or_else(|e| panic!("{e}"));
    let mut gaps = Vec::new();
    for target in TARGETS {
        for sig in table(target).signatures() {
            let Some(name) = sig
                .fixes()
                .iter()
                .find_map(|f| f.strip_prefix("load_skill "))
                .and_then(|rest| rest.split_whitespace().next())
            else {
                continue;
            };
            let listed = skills
                .get(name)
                .and_then(|s| s.metadata.get("signatures"))
                .is_some_and(|list| list.split_whitespace().any(|id| id == sig.id()));
            if !listed {
                gaps.push(format!("{target}: {} → {name}", sig.id()));
            }
        }
    }
    assert!(
        gaps.is_empty(),
        "skills that do not list the signatures sent to them:\n{}",
        gaps.join("\n")
    );
}
