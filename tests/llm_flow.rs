//! The decoder-LLM flow's static parts (docs/llm.md): the llm-executorch-xnnpack target runs in
//! executorch-xnnpack's venv, its contract loads over the LLM examples with every phase gated,
//! and the flow's real failure outputs (tests/data/llm/, recorded by tests/data/llm/record.sh from
//! the flow's scripts) classify into signatures whose fixes offer every candidate the evidence
//! leaves open. The flow running for real: tests/real_targets.rs and toolbox/tests/check_llm.py.

mod common;

use aipc::contract::Contract;
use aipc::toolchain::Toolchain;
use common::data_dir;
use common::flow_signatures::{check_cases, Case};
use common::LLM_STAGES;

const TARGET: &str = "llm-executorch-xnnpack";
const EXAMPLES: [&str; 3] = ["llm-gemma3-270m", "llm-llama-tiny", "llm-qwen-tiny"];

#[test]
fn the_llm_target_runs_in_executorch_and_gates_every_phase() {
    let toolbox = data_dir().join("toolbox");
    let toolchain = Toolchain::locate(&toolbox, TARGET);
    assert_eq!(toolchain.runtime, "executorch-xnnpack");
    for example in EXAMPLES {
        let contract = Contract::load(
            &toolbox.join("targets"),
            Some(TARGET),
            &data_dir().join("examples").join(example),
        )
        .unwrap_or_else(|e| panic!("{example}: {e}"));
        let names: Vec<&str> = contract.stages.iter().map(|s| s.name.as_str()).collect();
        let want: Vec<&str> = std::iter::once("env")
            .chain(LLM_STAGES)
            .chain(std::iter::once("report"))
            .collect();
        assert_eq!(names, want);
        let gates = |stage: &str| -> Vec<String> {
            contract.stage(stage).unwrap().checks[0]
                .gates
                .iter()
                .map(|g| g.to_string())
                .collect()
        };
        assert!(gates("prefill").contains(&"prefill_cosine_min >= 0.99".to_string()));
        assert!(gates("prefill").contains(&"prefill_top1_match == 1".to_string()));
        assert_eq!(gates("decode"), ["decode_match == 1"]);
        assert!(gates("quantize").contains(&"within_budget == 1".to_string()));
    }
}

#[test]
fn the_flows_failures_get_their_signatures_and_every_candidate() {
    let cases: &[Case] = &[
        (
            "cache-over-window.txt",
            "eager reference",
            &[],
            "llm.cache_over_window",
            &[r#"set_project_option {"key": "llm_cache_len", "value": 256}"#],
        ),
        (
            "cache-over-positions.txt",
            "eager reference",
            &[],
            "llm.cache_over_positions",
            &[r#"set_project_option {"key": "llm_cache_len", "value": 1024}"#],
        ),
        (
            "cache-too-short.txt",
            "eager reference",
            &[],
            "llm.cache_too_short",
            &[r#"set_project_option {"key": "llm_cache_len", "value": 294}"#],
        ),
        (
            "stale-reference.txt",
            "fp32 program built for this project",
            &[],
            "llm.stale_reference",
            &["llm_reference {}", "llm_export {}"],
        ),
        (
            "stale-program.txt",
            "fp32 program built for this project",
            &[],
            "llm.stale_reference",
            &["llm_reference {}", "llm_export {}"],
        ),
        (
            "no-reference.txt",
            "fp32 program built for this project",
            &[],
            "llm.no_reference",
            &["llm_reference {}"],
        ),
        (
            "no-program.txt",
            "prefill parity",
            &[],
            "llm.no_program",
            &["llm_export {}"],
        ),
        (
            "memory.txt",
            "fp32 program built for this project",
            &[],
            "llm.memory",
            &["ask_human: "],
        ),
        (
            "not-causal-lm.txt",
            "eager reference",
            &[],
            "llm.not_causal_lm",
            &["load_skill llm-deployment"],
        ),
        (
            "tokenizer-missing.txt",
            "eager reference",
            &[],
            "llm.tokenizer",
            &["load_skill llm-deployment"],
        ),
        (
            "",
            "prefill parity",
            &[
                "prefill_cosine_min >= 0.99=0.93",
                "prefill_top1_match == 1=0",
            ],
            "llm.prefill_mismatch",
            &["llm_export {}", "llm_reference {}"],
        ),
        (
            "decode-divergence.txt",
            "decode parity",
            &["decode_match == 1=0"],
            "llm.decode_divergence",
            &["llm_export {}"],
        ),
        (
            "",
            "quantized quality",
            &["within_budget == 1=0"],
            "llm.quant_over_budget",
            &[
                "quant_sweep {}",
                r#"llm_quantize {"scheme": "8da4w", "group_size": 32}"#,
                r#"llm_quantize {"scheme": "8da8w", "group_size": 0}"#,
            ],
        ),
        (
            "quant-lowering.txt",
            "quantized quality",
            &[],
            "llm.quant_lowering_mismatch",
            &[
                "quant_sweep {}",
                r#"llm_quantize {"scheme": "8da8w", "group_size": 0}"#,
            ],
        ),
        (
            "quant-unrecorded.txt",
            "quantized quality",
            &[],
            "llm.quant_chosen",
            &[
                r#"set_project_option {"key": "llm_quant", "value": "8da8w"}"#,
                r#"set_project_option {"key": "llm_group_size", "value": 0}"#,
            ],
        ),
        (
            "quant-stale.txt",
            "quantized quality",
            &["within_budget == 1=0", "scheme_matches == 1=0"],
            "llm.quant_stale",
            &["llm_quantize {}"],
        ),
        (
            "group-size.txt",
            "quantized quality",
            &[],
            "llm.group_size_unsupported",
            &[
                r#"set_project_option {"key": "llm_group_size", "value": 32}"#,
                r#"set_project_option {"key": "llm_group_size", "value": 0}"#,
            ],
        ),
        (
            "quant-exhausted.txt",
            "quantized quality",
            &[],
            "llm.quant_exhausted",
            &["ask_human: "],
        ),
        (
            "past-cache.txt",
            "quantized quality",
            &[],
            "llm.past_cache",
            &["llm_export {}"],
        ),
        (
            "quant-sweep.txt",
            "quantized quality",
            &[],
            "llm.quant_chosen",
            &[],
        ),
    ];
    check_cases(&[TARGET], "llm", "llm", cases);
}
