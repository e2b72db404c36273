//! The harness the flows' signature tests share (tests/split_flow.rs, tests/llm_flow.rs): each
//! case is a real failure output recorded under `tests/data/<flow>/` (or a gate failure alone),
//! classified with a target's table; the case names the signature it must get and fixes that must
//! be among the candidates; every signature of the flow's own table must be hit by some case.

use super::data_dir;
use aipc::evidence::{Classifier, Failure};
use std::collections::BTreeSet;

/// (fixture under tests/data/<flow>, or "" for a gate failure alone; failed check; gate
/// failures `<gate>=<measured>`; signature; fixes that must be among the candidates, by prefix).
pub type Case = (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static [&'static str],
);

fn failure(fixtures: &str, fixture: &str, check: &str, gates: &[&str]) -> Failure {
    let log = match fixture {
        "" => String::new(),
        f => std::fs::read_to_string(data_dir().join("tests/data").join(fixtures).join(f))
            .unwrap_or_else(|e| panic!("{f}: {e}")),
    };
    Failure {
        failed_check: format!("{check}: failed"),
        check: check.to_string(),
        exit_code: Some(if gates.is_empty() { 1 } else { 0 }),
        log,
        gate_failures: gates.iter().map(|g| g.to_string()).collect(),
    }
}

/// Classify every case with each target's table (`toolbox/targets/<target>/signatures.toml`) and
/// check that the flow's table (`toolbox/flows/<flow>/signatures.toml`) is covered.
pub fn check_cases(targets: &[&str], flow: &str, fixtures: &str, cases: &[Case]) {
    let mut seen = BTreeSet::new();
    for target in targets {
        let table = Classifier::load(
            &data_dir()
                .join("toolbox/targets")
                .join(target)
                .join("signatures.toml"),
        )
        .unwrap();
        for (fixture, check, gates, id, fixes) in cases {
            let ev = table.classify(&failure(fixtures, fixture, check, gates), true);
            assert_eq!(
                ev.signature, *id,
                "{fixture} / {check} on {target}: {:?}",
                ev.candidate_fixes
            );
            for fix in *fixes {
                assert!(
                    ev.candidate_fixes.iter().any(|f| f.starts_with(fix)),
                    "{fixture} on {target}: no fix starting {fix:?} in {:?}",
                    ev.candidate_fixes
                );
            }
            seen.insert(*id);
        }
    }
    let flow_table = data_dir()
        .join("toolbox/flows")
        .join(flow)
        .join("signatures.toml");
    for sig in Classifier::load(&flow_table).unwrap().signatures() {
        assert!(seen.contains(sig.id()), "no case for {}", sig.id());
    }
}
