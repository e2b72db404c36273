//! `report.junit.xml`, written beside `report.md` / `report.json`: the session as one JUnit
//! test suite with one test case per stage, so a CI system shows which stage of a deployment
//! failed and why. Made from the same [`Report`] as the other two (so from the event log).

use crate::report::Report;
use crate::session::view::{StageStatus, StageSummary};
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
use std::time::Duration;

/// The JUnit XML of `report`.
pub fn to_junit(report: &Report) -> Result<String, quick_junit::SerializeError> {
    let mut junit = quick_junit::Report::new(format!("aipc session {}", report.session_id));
    let mut suite = TestSuite::new(format!("{} → {}", report.project, report.target));
    suite.set_time(Duration::from_millis(report.duration_ms));
    suite.add_property(("outcome", report.outcome.word()));
    suite.add_property(("model", report.model.as_str()));
    suite.add_property(("branch", report.branch.as_str()));
    for stage in &report.stages {
        suite.add_test_case(stage_case(report, stage));
    }
    junit.add_test_suite(suite);
    junit.to_string()
}

fn stage_case(report: &Report, stage: &StageSummary) -> TestCase {
    let status = match stage.status {
        StageStatus::Passed => TestCaseStatus::success(),
        StageStatus::Failed => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_message(failure_message(stage));
            status.set_type(
                stage
                    .last_evidence
                    .as_ref()
                    .map(|e| e.signature.clone())
                    .unwrap_or_else(|| "check failed".to_string()),
            );
            status.set_description(failure_detail(stage));
            status
        }
        StageStatus::Running => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(format!(
                "the session ended ({}) while this stage ran",
                report.outcome.word()
            ));
            status.set_description(failure_detail(stage));
            status
        }
        StageStatus::Skipped => {
            let mut status = TestCaseStatus::skipped();
            status.set_message("skipped");
            status
        }
        StageStatus::Pending => {
            let mut status = TestCaseStatus::skipped();
            status.set_message("not reached");
            status
        }
    };
    let mut case = TestCase::new(stage.name.as_str(), status);
    case.set_classname(format!("aipc.{}", report.target));
    case.set_time(Duration::from_millis(stage.duration_ms));
    case.set_assertions(stage.checks.len());
    case.add_property(("attempts", stage.attempts.to_string().as_str()));
    for (name, value) in &stage.metrics {
        case.add_property((name.as_str(), value.to_string().as_str()));
    }
    case
}

/// One line: the first failing check of the last attempt, or the evidence's.
fn failure_message(stage: &StageSummary) -> String {
    if let Some(evidence) = &stage.last_evidence {
        return evidence.failed_check.clone();
    }
    stage
        .checks
        .iter()
        .find(|c| !c.passed)
        .map(|c| format!("{}: {}", c.name, c.detail))
        .unwrap_or_else(|| format!("failed after {} attempt(s)", stage.attempts))
}

/// The checks of the last attempt and the evidence excerpt.
fn failure_detail(stage: &StageSummary) -> String {
    let mut text = String::new();
    for check in &stage.checks {
        text.push_str(&format!(
            "{} {}: {}\n",
            if check.passed { "ok  " } else { "FAIL" },
            check.name,
            check.detail
        ));
    }
    if let Some(evidence) = &stage.last_evidence {
        text.push_str(&format!("\nsignature: {}\n", evidence.signature));
        if !evidence.excerpt.is_empty() {
            text.push_str(&format!("{}\n", evidence.excerpt));
        }
    }
    text
}
