//! The text a constrained decoder may write for a number or integer tool argument: a regular
//! expression of bounded length that also keeps the argument's `minimum` / `maximum`.
//!
//! A JSON number has no length a schema can bound (the 270M model wrote `100.0000…` until its
//! reply limit), so number arguments reach the decoder as strings
//! ([`crate::conversation::call_schema`]). Dropping the bounds with the type let the model write
//! `"percentile": "1"` for a tool that takes 90–100, twice, and end the stage without an
//! artifact. This module writes the range into the pattern instead: integers by the usual
//! digit-by-digit split of a range into runs of equal length, numbers as an integer part in the
//! range plus at most 8 fractional digits. Where a bound cannot be written exactly (a negative
//! or fractional lower bound of a number) the pattern falls back to any bounded-length number
//! and the tool's own check refuses what is out of range.

/// Most integer digits a number argument may have (values up to 10^12 - 1).
const INTEGER_DIGITS: u32 = 12;
/// Most fractional digits.
const FRACTION_DIGITS: u32 = 8;
/// The largest integer part the patterns allow.
const LARGEST: i64 = 10_i64.pow(INTEGER_DIGITS) - 1;

/// Any number of bounded length: sign, at most 12 integer, 8 fractional and 3 exponent digits.
pub const ANY_NUMBER: &str = r"^-?(0|[1-9][0-9]{0,11})(\.[0-9]{1,8})?([eE][-+]?[0-9]{1,3})?$";
/// Any integer of at most 12 digits.
pub const ANY_INTEGER: &str = r"^-?(0|[1-9][0-9]{0,11})$";

/// The pattern of an integer argument within `[minimum, maximum]` (either may be absent).
pub fn integer(minimum: Option<f64>, maximum: Option<f64>) -> String {
    let lo = minimum.map_or(-LARGEST, |m| clamp(m.ceil()));
    let hi = maximum.map_or(LARGEST, |m| clamp(m.floor()));
    if lo > hi {
        return ANY_INTEGER.to_string();
    }
    format!("^({})$", integer_range(lo, hi))
}

/// The pattern of a number argument within `[minimum, maximum]` (either may be absent).
pub fn number(minimum: Option<f64>, maximum: Option<f64>) -> String {
    if minimum.is_none() && maximum.is_none() {
        return ANY_NUMBER.to_string();
    }
    // A fraction moves a negative integer part down, not up: only non-negative ranges are
    // written exactly; the others keep the length bound and leave the range to the tool.
    let Some(lo) = minimum.filter(|m| *m >= 0.0) else {
        return ANY_NUMBER.to_string();
    };
    let first = clamp(lo.ceil());
    let last = maximum.map_or(LARGEST, |m| clamp(m.floor()));
    if first > last {
        return ANY_NUMBER.to_string();
    }
    let fraction = format!(r"(\.[0-9]{{1,{FRACTION_DIGITS}}})?");
    let mut parts = Vec::new();
    if first < last {
        parts.push(format!("({}){fraction}", integer_range(first, last - 1)));
    }
    let last_fraction = match maximum {
        // At an integer maximum the fraction can only be zeros.
        Some(m) if m.fract() == 0.0 => format!(r"(\.0{{1,{FRACTION_DIGITS}}})?"),
        _ => fraction,
    };
    parts.push(format!("{last}{last_fraction}"));
    format!("^({})$", parts.join("|"))
}

fn clamp(value: f64) -> i64 {
    // `as` saturates, so a huge bound becomes the largest value the pattern can hold.
    (value as i64).clamp(-LARGEST, LARGEST)
}

/// An alternation (no anchors) matching exactly the integers of `[lo, hi]`, written without
/// leading zeros, `-` before a negative one (`-0` is not written).
fn integer_range(lo: i64, hi: i64) -> String {
    let mut parts = Vec::new();
    if lo < 0 {
        let (neg_lo, neg_hi) = ((hi.min(-1)).unsigned_abs(), lo.unsigned_abs());
        parts.extend(
            digit_runs(neg_lo, neg_hi)
                .into_iter()
                .map(|run| format!("-{run}")),
        );
    }
    if hi >= 0 {
        parts.extend(digit_runs(lo.max(0).unsigned_abs(), hi.unsigned_abs()));
    }
    parts.join("|")
}

/// `[lo, hi]` (non-negative) as patterns of digit runs: the range split at every point where
/// the number of digits, or a digit position's freedom, changes (`13..=23` → `1[3-9]`, `2[0-3]`).
fn digit_runs(lo: u64, hi: u64) -> Vec<String> {
    let mut stops = vec![hi];
    // Up from lo: lo with its last 1, 2, … digits set to 9.
    let mut nines = 1;
    loop {
        let stop = fill_nines(lo, nines);
        if stop < lo || stop >= hi {
            break;
        }
        stops.push(stop);
        nines += 1;
    }
    // Down from hi + 1: with its last 1, 2, … digits set to 0, minus one.
    let mut zeros = 1;
    while let Some(stop) = fill_zeros(hi + 1, zeros).checked_sub(1) {
        if stop <= lo || stop > hi {
            break;
        }
        stops.push(stop);
        zeros += 1;
    }
    stops.sort_unstable();
    stops.dedup();
    let mut start = lo;
    let mut runs = Vec::new();
    for stop in stops {
        if stop < start {
            continue;
        }
        runs.push(run_pattern(start, stop));
        start = stop + 1;
    }
    runs
}

fn fill_nines(n: u64, count: u32) -> u64 {
    let p = 10_u64.pow(count);
    n - n % p + (p - 1)
}

fn fill_zeros(n: u64, count: u32) -> u64 {
    n - n % 10_u64.pow(count)
}

/// The pattern of `[start, stop]`, two numbers of equal length whose digits differ only in a
/// free tail (what [`digit_runs`] makes).
fn run_pattern(start: u64, stop: u64) -> String {
    let (a, b) = (start.to_string(), stop.to_string());
    let mut pattern = String::new();
    let mut free = 0;
    for (x, y) in a.chars().zip(b.chars()) {
        if x == y {
            pattern.push(x);
        } else if x == '0' && y == '9' {
            free += 1;
        } else {
            pattern.push_str(&format!("[{x}-{y}]"));
        }
    }
    match free {
        0 => {}
        1 => pattern.push_str("[0-9]"),
        n => pattern.push_str(&format!("[0-9]{{{n}}}")),
    }
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        regex::Regex::new(pattern).unwrap().is_match(text)
    }

    #[test]
    fn an_integer_range_matches_exactly_its_members() {
        for (lo, hi) in [
            (13, 23),
            (1, 64),
            (0, 20),
            (5, 5),
            (1, 4096),
            (-17, 9),
            (-250, -3),
            (7, 1000),
        ] {
            let pattern = integer(Some(lo as f64), Some(hi as f64));
            for n in (lo - 300)..=(hi + 300) {
                assert_eq!(
                    matches(&pattern, &n.to_string()),
                    (lo..=hi).contains(&n),
                    "{n} against {pattern} ({lo}..={hi})"
                );
            }
            assert!(!matches(&pattern, "007"), "{pattern}");
        }
    }

    #[test]
    fn one_sided_integer_bounds_stay_within_twelve_digits() {
        let at_least_one = integer(Some(1.0), None);
        assert!(matches(&at_least_one, "1"));
        assert!(matches(&at_least_one, "999999999999"));
        assert!(!matches(&at_least_one, "1000000000000"));
        assert!(!matches(&at_least_one, "0"));
        assert!(!matches(&at_least_one, "-1"));
        let any = integer(None, None);
        assert!(matches(&any, "-42") && matches(&any, "0"));
        assert!(!matches(&any, "1.5"));
    }

    #[test]
    fn a_number_range_keeps_its_bounds_and_a_bounded_length() {
        let percentile = number(Some(90.0), Some(100.0));
        for ok in ["90", "99.999", "99.99999999", "100", "100.0", "95.5"] {
            assert!(matches(&percentile, ok), "{ok} against {percentile}");
        }
        for bad in [
            "1",
            "89.9",
            "100.5",
            "101",
            "100.000000000",
            "99.123456789",
            "-95",
            "9e1",
        ] {
            assert!(!matches(&percentile, bad), "{bad} against {percentile}");
        }
        let at_least_half = number(Some(0.5), None);
        assert!(matches(&at_least_half, "10.0") && matches(&at_least_half, "1"));
        assert!(!matches(&at_least_half, "0.1"));
        let unit = number(Some(0.0), Some(1.0));
        assert!(matches(&unit, "0.25") && matches(&unit, "1") && matches(&unit, "0"));
        assert!(!matches(&unit, "1.5"));
    }

    #[test]
    fn bounds_that_cannot_be_written_keep_the_length_bound_only() {
        assert_eq!(number(Some(-1.0), Some(1.0)), ANY_NUMBER);
        assert_eq!(number(None, Some(3.0)), ANY_NUMBER);
        assert_eq!(number(Some(0.1), Some(0.9)), ANY_NUMBER);
        assert_eq!(integer(Some(5.0), Some(2.0)), ANY_INTEGER);
        assert!(matches(ANY_NUMBER, "1e-3") && !matches(ANY_NUMBER, "100.000000000"));
    }
}
