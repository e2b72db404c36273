//! The split-adaptation flow's static parts (docs/split-adaptation.md): the split-* targets share
//! one contract (they differ only in their target and description lines), run in their runtime's
//! venv, load over the adaptation examples, and classify the flow's real failure outputs
//! (tests/data/split/, recorded from the flow's scripts) into signatures whose fixes offer every
//! candidate the evidence leaves open. The flow running for real: tests/real_targets.rs and
//! toolbox/tests/check_split.py.

mod common;

use aipc::contract::Contract;
use aipc::toolchain::Toolchain;
use common::data_dir;
use common::flow_signatures::{check_cases, Case};

const TARGETS: [(&str, &str); 2] = [
    ("split-onnxruntime-cpu", "onnxruntime-cpu"),
    ("split-executorch-xnnpack", "executorch-xnnpack"),
];

fn contract_text(target: &str) -> String {
    std::fs::read_to_string(
        data_dir()
            .join("toolbox/targets")
            .join(target)
            .join("contract.toml"),
    )
    .unwrap()
}

#[test]
fn the_split_targets_share_one_contract() {
    let strip = |text: &str| {
        text.lines()
            .filter(|l| !l.starts_with("target = ") && !l.starts_with("description = "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        strip(&contract_text(TARGETS[0].0)),
        strip(&contract_text(TARGETS[1].0))
    );
}

#[test]
fn the_split_targets_run_in_their_runtimes_venv_and_load_over_the_examples() {
    let toolbox = data_dir().join("toolbox");
    for (target, runtime) in TARGETS {
        let toolchain = Toolchain::locate(&toolbox, target);
        assert_eq!(toolchain.runtime, runtime);
        assert!(toolchain
            .venv
            .as_ref()
            .unwrap()
            .ends_with(format!("{runtime}/venv")));
        for example in ["adapt-digits-cnn", "adapt-digits-dwsep"] {
            let contract = Contract::load(
                &toolbox.join("targets"),
                Some(target),
                &data_dir().join("examples").join(example),
            )
            .unwrap_or_else(|e| panic!("{example} on {target}: {e}"));
            let names: Vec<&str> = contract.stages.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(
                names,
                ["env", "split", "backbone", "features", "extract", "adapt", "cost", "report"]
            );
            // The feature gate's thresholds are the ones restoration_sweep.py measures against.
            let sweep = std::fs::read_to_string(
                toolbox.join("flows/split-adaptation/restoration_sweep.py"),
            )
            .unwrap();
            let gates: Vec<String> = contract.stage("features").unwrap().checks[0]
                .gates
                .iter()
                .map(|g| g.to_string())
                .collect();
            assert!(
                gates.contains(&"cosine_mean >= 0.99".to_string()),
                "{gates:?}"
            );
            assert!(
                gates.contains(&"channel_err_max <= 0.25".to_string()),
                "{gates:?}"
            );
            assert!(
                sweep.contains("COSINE_MEAN_MIN = 0.99")
                    && sweep.contains("CHANNEL_ERR_MAX = 0.25")
            );
        }
    }
}

#[test]
fn the_flows_failures_get_their_signatures_and_every_candidate() {
    let cases: &[Case] = &[
        (
            "head-unknown.txt",
            "backbone and head make the model",
            &[],
            "split.head_unknown",
            &[r#"set_project_option {"key": "split_head", "value": "head"}"#],
        ),
        (
            "head-inner.txt",
            "backbone and head make the model",
            &[],
            "split.head_input",
            &[r#"set_project_option {"key": "split_head", "value": "head"}"#],
        ),
        (
            "split-mismatch.txt",
            "backbone and head make the model",
            &["split_ok == 1=0"],
            "split.mismatch",
            &["ask_human: when the model applies something after every candidate"],
        ),
        (
            "no-backbone.txt",
            "fp32 backbone matches eager",
            &[],
            "split.no_backbone",
            &["build_backbone {}"],
        ),
        (
            "feature-drift.txt",
            "int8 features match fp32",
            &[
                "cosine_mean >= 0.99=0.921154",
                "channel_err_max <= 0.25=2.197469",
            ],
            "split.feature_drift",
            &[
                "restoration_sweep {}",
                r#"build_backbone {"restoration": "per_channel"}"#,
                r#"build_backbone {"restoration": "cle"}"#,
            ],
        ),
        (
            "restoration-sweep.txt",
            "int8 features match fp32",
            &[],
            "split.restoration_chosen",
            &[r#"set_project_option {"key": "restoration", "value": "cle"}"#],
        ),
        (
            "restoration-exhausted.txt",
            "int8 features match fp32",
            &[],
            "split.restoration_exhausted",
            &["ask_human: "],
        ),
        (
            "restoration-unrecorded.txt",
            "int8 features match fp32",
            &["restoration_matches == 1=0"],
            "split.restoration_unrecorded",
            &[r#"set_project_option {"key": "restoration", "value": "cle"}"#],
        ),
        (
            "stale-features.txt",
            "head trained",
            &[],
            "split.stale_features",
            &["extract_features {}"],
        ),
        (
            "",
            "fp32 backbone matches eager",
            &["fp32_cosine_min >= 0.999=0.93"],
            "split.fp32_mismatch",
            &["load_skill export-layer-fidelity"],
        ),
        (
            "",
            "adaptation within budget",
            &["within_budget == 1=0"],
            "split.adaptation_drop",
            &["restoration_sweep {}"],
        ),
        (
            "",
            "cost measured",
            &["within_budget == 1=0"],
            "split.cost_over_budget",
            &["adaptation_cost {}"],
        ),
    ];
    let targets: Vec<&str> = TARGETS.iter().map(|(t, _)| *t).collect();
    check_cases(&targets, "split-adaptation", "split", cases);
}
