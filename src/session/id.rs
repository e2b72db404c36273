//! Session ids and UTC time stamps.
//!
//! An id is `YYYYMMDD-HHMMSS-xxxx`: the UTC start time (so ids sort chronologically) and four
//! hex digits from a cheap random source (a randomly keyed std hasher over the clock's
//! nanoseconds, the process id and a per-process counter). Two sessions started in the same
//! second collide with probability 1/65536; `EventLog::create` refuses an existing log, so a
//! collision is an error, never an overwrite.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use time::macros::format_description;
use time::OffsetDateTime;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A new, sortable, practically unique session id, e.g. `20261129-193012-7f3a`.
pub fn new_session_id() -> String {
    let now = OffsetDateTime::now_utc();
    let stamp = now
        .format(format_description!(
            "[year][month][day]-[hour][minute][second]"
        ))
        .unwrap_or_else(|_| format!("{}", now.unix_timestamp()));
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(now.unix_timestamp_nanos().unsigned_abs());
    hasher.write_u32(std::process::id());
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("{stamp}-{:04x}", hasher.finish() & 0xffff)
}

/// The current UTC time as RFC 3339 with whole seconds, e.g. `2026-11-29T19:30:12Z`.
pub fn now_rfc3339() -> String {
    rfc3339(OffsetDateTime::now_utc())
}

/// Format a time as RFC 3339 UTC with whole seconds.
pub(crate) fn rfc3339(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    t.format(format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
    ))
    .unwrap_or_else(|_| format!("@{}", t.unix_timestamp()))
}

/// Format milliseconds since the Unix epoch as RFC 3339 UTC (empty when out of range).
pub(crate) fn rfc3339_from_ms(ms: u64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .map(rfc3339)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_has_the_documented_shape() {
        let id = new_session_id();
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(parts.len(), 3, "{id}");
        assert_eq!(parts[0].len(), 8, "{id}");
        assert_eq!(parts[1].len(), 6, "{id}");
        assert_eq!(parts[2].len(), 4, "{id}");
        assert!(parts[0]
            .chars()
            .chain(parts[1].chars())
            .all(|c| c.is_ascii_digit()));
        assert!(parts[2].chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn ids_vary() {
        let ids: std::collections::BTreeSet<String> = (0..50).map(|_| new_session_id()).collect();
        // 50 draws of 16 bits: a handful of collisions at most, never all equal.
        assert!(ids.len() > 40, "{ids:?}");
    }

    #[test]
    fn rfc3339_formats() {
        assert_eq!(rfc3339_from_ms(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_from_ms(1_700_000_000_123), "2023-11-14T22:13:20Z");
        assert!(now_rfc3339().ends_with('Z'));
    }
}
