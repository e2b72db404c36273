//! The in-process llama.cpp backend with the real default model (Gemma 3 270M Q4_K_M):
//! every reply under the tool-call constraint is a valid call, greedy decoding reproduces, and
//! KV-cache reuse changes nothing but the work done.
//!
//! Needs the model in the cache (`aipc model fetch`; `.ci/run` does it). Without it these tests
//! fail and say so: they are the reason the backend exists.

use aipc::contract::{Contract, StageSpec};
use aipc::conversation::{self, call_schema, parse_reply, Conversation, OfferedTool, StagePrompt};
use aipc::model::llama::LlamaCppBackend;
use aipc::model::{ModelBackend, ModelOptions, ModelRequest, Role};
use aipc::prompts::Prompts;
use aipc::protocol::Evidence;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn model_path() -> PathBuf {
    let path = aipc::model::store::default_model_path();
    assert!(
        path.is_file(),
        "the default model is missing at {}: run `aipc model fetch` (or .ci/run)",
        path.display()
    );
    path
}

fn load(reuse_kv: bool) -> LlamaCppBackend {
    // One thread each: the tests in this file run in parallel on a 2-core machine, and two
    // thread pools of two threads each on two cores spend their time waiting on each other.
    let options = ModelOptions {
        context_size: 4096,
        threads: Some(1),
        ..ModelOptions::default()
    };
    LlamaCppBackend::load(
        &model_path(),
        &data_dir().join("prompts"),
        &options,
        reuse_kv,
    )
    .unwrap()
}

fn tools(names: &[&str]) -> Vec<OfferedTool> {
    names
        .iter()
        .map(|n| OfferedTool::from(aipc::tools::spec(n).unwrap()))
        .collect()
}

fn stage(name: &str, goal: &str, gates: &[&str]) -> StageSpec {
    let mut text = format!(
        "target = \"t\"\n[[stage]]\nname = \"{name}\"\ngoal = \"{goal}\"\n[[stage.check]]\nname = \"check\"\ncommand = \"true\"\n"
    );
    if !gates.is_empty() {
        let list: Vec<String> = gates.iter().map(|g| format!("\"{g}\"")).collect();
        text.push_str(&format!("gates = [{}]\n", list.join(", ")));
    }
    let contract = Contract::from_strs(("contract.toml", &text), None).unwrap();
    contract.stages[0].clone()
}

/// Twenty different situations a stage can be in: goals, tool sets, histories, repairs.
fn scenarios(prompts: &Prompts) -> Vec<(Conversation, Vec<String>)> {
    let all = [
        "read_file",
        "list_dir",
        "search",
        "edit_file",
        "write_file",
        "apply_patch",
        "run",
        "finish_stage",
        "ask_human",
    ];
    let few = ["read_file", "run", "finish_stage"];
    let edit = ["read_file", "edit_file", "run", "finish_stage"];
    let goals: [(&str, &str, &[&str]); 5] = [
        (
            "export",
            "Export the model to ONNX with python3 export.py (opset 18).",
            &[],
        ),
        (
            "inspect",
            "List the inputs, outputs and operators of build/model.onnx.",
            &[],
        ),
        (
            "quantize",
            "Quantize build/model.onnx to static INT8 with 64 calibration samples.",
            &["cosine >= 0.95", "top1_agreement >= 0.98"],
        ),
        (
            "validate",
            "Make the exported artifact agree with the eager model.",
            &["cosine >= 0.999"],
        ),
        (
            "performance",
            "Bring p50 latency under 5 ms with 2 threads.",
            &["p50_ms <= 5"],
        ),
    ];
    let evidence = Evidence {
        signature: "onnx.unsupported_op".into(),
        class: Some("unsupported-operator".into()),
        failed_check: "export runs: exit code 1, expected 0".into(),
        exit_code: Some(1),
        excerpt: "torch.onnx.errors.UnsupportedOperatorError: aten::unique_consecutive".into(),
        facts: [("op".to_string(), "aten::unique_consecutive".to_string())].into(),
        candidate_fixes: vec!["rewrite the op in model.py".into()],
    };
    let mut out = Vec::new();
    for (i, (name, goal, gates)) in goals.iter().enumerate() {
        let spec = stage(name, goal, gates);
        for (variant, names) in [&all[..], &few[..], &edit[..], &all[..]].iter().enumerate() {
            let offered = tools(names);
            let repair = (variant == 3).then_some((2, 3, &evidence));
            let mut conversation = conversation::open_conversation(
                prompts,
                &StagePrompt {
                    target: "onnxruntime-cpu",
                    stage: &spec,
                    stage_index: i + 1,
                    stage_count: 7,
                    tools: &offered,
                    skills: &[],
                    previous: &["env: python 3.11 ready".to_string()],
                    repair,
                },
            )
            .unwrap();
            if variant == 2 {
                conversation.push(
                    Role::Assistant,
                    r#"{"thought": "look first", "tool": "read_file", "args": {"path": "export.py"}}"#.into(),
                );
                conversation.push(
                    Role::Tool,
                    "[read_file ok]\nexport.py: lines 1-4 of 4\n1| import torch\n2| from model import Net\n3| m = Net().eval()\n4| torch.onnx.export(m, (torch.randn(1, 8),), 'build/model.onnx', opset_version=18)".into(),
                );
            }
            out.push((conversation, names.iter().map(|s| s.to_string()).collect()));
        }
    }
    out
}

fn request(conversation: &Conversation, allowed: &[String]) -> ModelRequest {
    let offered: Vec<OfferedTool> = allowed
        .iter()
        .map(|n| OfferedTool::from(aipc::tools::spec(n).unwrap()))
        .collect();
    ModelRequest {
        messages: conversation.messages.clone(),
        call_schema: call_schema(&offered),
        max_tokens: 256,
    }
}

#[tokio::test]
async fn every_constrained_reply_is_a_valid_call_and_greedy_reproduces() {
    let prompts = Prompts::load(&data_dir().join("prompts")).unwrap();
    let mut model = load(true);
    let scenarios = scenarios(&prompts);
    assert_eq!(scenarios.len(), 20);
    let mut first_text = None;
    for (i, (conversation, allowed)) in scenarios.iter().enumerate() {
        let mut streamed = String::new();
        let reply = model
            .complete(&request(conversation, allowed), &mut |d| {
                streamed.push_str(d)
            })
            .await
            .unwrap();
        eprintln!(
            "scenario {i}: {} prompt tokens ({} reused), {} generated, {} ms",
            reply.prompt_tokens, reply.cached_tokens, reply.completion_tokens, reply.duration_ms
        );
        assert_eq!(streamed, reply.text, "deltas must add up to the reply");
        let call = parse_reply(&reply.text, allowed)
            .unwrap_or_else(|e| panic!("scenario {i}: {e}\nreply: {}", reply.text));
        assert!(allowed.contains(&call.tool));
        // The arguments satisfy the tool's own argument type (the schema is its source).
        assert!(call.args.is_object(), "scenario {i}: {}", reply.text);
        assert!(reply.completion_tokens > 0 && reply.prompt_tokens > 0);
        if i == 0 {
            first_text = Some(reply.text.clone());
        }
    }
    // Greedy: the same prompt again gives the same call.
    let (conversation, allowed) = &scenarios[0];
    let again = model
        .complete(&request(conversation, allowed), &mut |_| {})
        .await
        .unwrap();
    assert_eq!(Some(again.text), first_text);
}

#[tokio::test]
async fn kv_reuse_changes_the_work_not_the_output() {
    let prompts = Prompts::load(&data_dir().join("prompts")).unwrap();
    let (mut conversation, allowed) = scenarios(&prompts).swap_remove(0);
    let mut reusing = load(true);
    let mut fresh = load(false);
    for turn in 0..3 {
        let req = request(&conversation, &allowed);
        let a = reusing
            .generate(&req, Some(req.call_schema.clone()), &mut |_| {})
            .await
            .unwrap();
        let b = fresh
            .generate(&req, Some(req.call_schema.clone()), &mut |_| {})
            .await
            .unwrap();
        // The call (tool and arguments) must be the same. The free-text thought may not be: the
        // reused prefix's keys were computed in other batch shapes than the fresh run's, so
        // their floats differ in the last bits, and a near-tie between two tokens of a
        // repetitive thought can go either way (seen when a grammar change moved turn 0's call).
        let (call_a, call_b) = (
            parse_reply(&a.text, &allowed).unwrap(),
            parse_reply(&b.text, &allowed).unwrap(),
        );
        assert_eq!(
            (&call_a.tool, &call_a.args),
            (&call_b.tool, &call_b.args),
            "turn {turn}: reuse changed the call\nreusing: {}\nfresh: {}",
            a.text,
            b.text
        );
        assert_eq!(b.reused_tokens, 0);
        if turn > 0 {
            let new_tokens = a.prompt_tokens - a.reused_tokens;
            assert!(
                a.evaluated_tokens as f64 <= 1.1 * new_tokens as f64 + 1.0,
                "turn {turn}: evaluated {} for {new_tokens} new tokens",
                a.evaluated_tokens
            );
            assert!(a.reused_tokens > a.prompt_tokens / 2, "turn {turn}: {a:?}");
        }
        conversation.push(Role::Assistant, a.text.clone());
        conversation.push(
            Role::Tool,
            format!("[tool ok]\nobservation for turn {turn}: 3 files, 120 lines"),
        );
    }
}

#[test]
fn bad_model_files_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let prompts = data_dir().join("prompts");
    let options = ModelOptions::default();
    let missing = dir.path().join("nope.gguf");
    let text = dir.path().join("notes.gguf");
    std::fs::write(&text, "this is not a model\n").unwrap();
    let truncated = dir.path().join("truncated.gguf");
    let bytes = std::fs::read(model_path()).unwrap();
    std::fs::write(&truncated, &bytes[..10 * 1024 * 1024]).unwrap();
    for path in [&missing, &text, &truncated] {
        let err = LlamaCppBackend::load(path, &prompts, &options, true)
            .err()
            .unwrap()
            .to_string();
        assert!(!err.contains('\n'), "{err}");
        assert!(
            err.contains(path.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
    }
}
