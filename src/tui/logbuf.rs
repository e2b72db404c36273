//! The toolchain log pane's storage: every line of every command and check, in order, in a
//! memory-bounded buffer. Lines are kept in chunks of [`CHUNK_LINES`]; when the chunks in
//! memory exceed the cap, the oldest chunk is appended to a spill file in the session folder
//! (`tui-log-spill.txt`, plain text, one line each) and read back from there when the engineer
//! scrolls or searches that far up. Without a spill file (tests, or a write error) the oldest
//! lines are dropped and shown as such, so memory stays bounded either way.
//!
//! A replay going back hides lines instead of dropping them ([`LogBuf::show`]): when it plays
//! forward again, the same lines come again and are taken from what is kept (compared, not
//! stored twice); a line that differs cuts the kept ones off from there.
//!
//! Invariants: line numbers are global and stable (line `n` is always the `n`-th line pushed);
//! every chunk but the last holds exactly [`CHUNK_LINES`] lines, so finding a line is
//! arithmetic; a line never contains `\n` (the caller splits); the lines shown are the first
//! `total` of the `stored` ones.

use super::ansi;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Mutex;

/// Lines per chunk (the unit of spilling and reading back).
pub const CHUNK_LINES: usize = 4096;
/// Memory the in-memory chunks may use by default.
pub const DEFAULT_MEMORY_CAP: usize = 48 * 1024 * 1024;
/// Longer lines are cut (with a note of how much was cut).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// What a log line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Stdout,
    Stderr,
    /// `━━ <call or check>: <command>` before a command's output.
    Header,
    /// `── exit 0 · 0.3 s` after it.
    Footer,
}

/// Which command a line belongs to (an index into the state's origins) and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineMeta {
    pub origin: u32,
    pub kind: LineKind,
}

struct Chunk {
    text: String,
    ends: Vec<u32>,
    meta: Vec<LineMeta>,
}

impl Chunk {
    fn new() -> Self {
        Chunk {
            text: String::with_capacity(64 * 1024),
            ends: Vec::with_capacity(CHUNK_LINES),
            meta: Vec::with_capacity(CHUNK_LINES),
        }
    }

    fn line(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    fn bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 4 + self.meta.capacity() * 8
    }
}

/// A chunk no longer in memory: where it is in the spill file (`None`: dropped) and its line
/// kinds as runs.
struct Evicted {
    lines: usize,
    runs: Vec<(u32, LineMeta)>,
    location: Option<(u64, u64)>,
}

impl Evicted {
    fn meta(&self, i: usize) -> LineMeta {
        let mut seen = 0usize;
        for (count, meta) in &self.runs {
            seen += *count as usize;
            if i < seen {
                return *meta;
            }
        }
        self.runs.last().map(|(_, m)| *m).unwrap_or(LineMeta {
            origin: 0,
            kind: LineKind::Stdout,
        })
    }
}

/// A spilled chunk read back: its text and line boundaries.
struct Loaded {
    text: String,
    bounds: Vec<(usize, usize)>,
}

impl Loaded {
    fn line(&self, i: usize) -> &str {
        self.bounds
            .get(i)
            .map(|&(s, e)| &self.text[s..e])
            .unwrap_or_default()
    }
}

pub struct LogBuf {
    evicted: Vec<Evicted>,
    chunks: VecDeque<Chunk>,
    /// Lines shown.
    total: u64,
    /// Lines kept (more than shown after a replay went back).
    stored: u64,
    mem_bytes: usize,
    cap: usize,
    spill_path: Option<PathBuf>,
    spill_file: Option<File>,
    spill_written: u64,
    spill_error: Option<String>,
    cache: Mutex<Option<(usize, Loaded)>>,
}

impl LogBuf {
    /// A buffer that spills to `spill_path` (created on first use) beyond `cap` bytes.
    pub fn new(spill_path: Option<PathBuf>, cap: usize) -> Self {
        LogBuf {
            evicted: Vec::new(),
            chunks: VecDeque::new(),
            total: 0,
            stored: 0,
            mem_bytes: 0,
            cap: cap.max(1),
            spill_path,
            spill_file: None,
            spill_written: 0,
            spill_error: None,
            cache: Mutex::new(None),
        }
    }

    /// Number of lines pushed so far.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Bytes used by the lines in memory plus the index of spilled ones.
    pub fn memory_bytes(&self) -> usize {
        let evicted: usize = self
            .evicted
            .iter()
            .map(|e| std::mem::size_of::<Evicted>() + e.runs.capacity() * 12)
            .sum();
        self.mem_bytes + evicted
    }

    /// Lines now only in the spill file (or dropped).
    pub fn evicted_lines(&self) -> u64 {
        self.evicted.iter().map(|e| e.lines as u64).sum()
    }

    /// Bytes written to the spill file.
    pub fn spilled_bytes(&self) -> u64 {
        self.spill_written
    }

    /// Why spilling stopped, if it did.
    pub fn spill_error(&self) -> Option<&str> {
        self.spill_error.as_deref()
    }

    /// Whether [`LogBuf::show`] can show `len` lines: this many were pushed (and kept).
    pub fn can_show(&self, len: u64) -> bool {
        len <= self.stored
    }

    /// Show only the first `len` lines (at most as many as were pushed): a replay going back.
    /// The lines after them are kept for when the same lines are pushed again.
    pub fn show(&mut self, len: u64) {
        self.total = len.min(self.stored);
    }

    /// Append one line (without `\n`).
    pub fn push(&mut self, line: &str, meta: LineMeta) {
        if self.stored > self.total {
            let same = self
                .kept_line(self.total)
                .is_some_and(|(kept, kept_meta)| kept_meta == meta && kept == stored_form(line));
            if same {
                self.total += 1;
                return;
            }
            self.cut(self.total);
        }
        let needs_chunk = self
            .chunks
            .back()
            .is_none_or(|c| c.ends.len() >= CHUNK_LINES);
        if needs_chunk {
            if let Some(full) = self.chunks.back_mut() {
                let before = full.bytes();
                full.text.shrink_to_fit();
                self.mem_bytes = self.mem_bytes - before + full.bytes();
            }
            let chunk = Chunk::new();
            self.mem_bytes += chunk.bytes();
            self.chunks.push_back(chunk);
            while self.mem_bytes > self.cap && self.chunks.len() > 1 {
                self.evict_front();
            }
        }
        let Some(chunk) = self.chunks.back_mut() else {
            return;
        };
        let before = chunk.text.capacity();
        chunk.text.push_str(&stored_form(line));
        chunk.ends.push(chunk.text.len() as u32);
        chunk.meta.push(meta);
        self.mem_bytes += chunk.text.capacity() - before;
        self.total += 1;
        self.stored += 1;
    }

    /// Drop the kept lines from `len` on (memory, index and spill file alike).
    fn cut(&mut self, len: u64) {
        if len >= self.stored {
            return;
        }
        match self.cache.lock() {
            Ok(mut guard) => *guard = None,
            Err(poisoned) => *poisoned.into_inner() = None,
        }
        let chunk_no = (len / CHUNK_LINES as u64) as usize;
        let within = (len % CHUNK_LINES as u64) as usize;
        if chunk_no >= self.evicted.len() {
            let index = chunk_no - self.evicted.len();
            self.chunks.truncate(index + 1);
            if within == 0 {
                self.chunks.truncate(index);
            } else if let Some(chunk) = self.chunks.get_mut(index) {
                chunk.text.truncate(chunk.ends[within - 1] as usize);
                chunk.ends.truncate(within);
                chunk.meta.truncate(within);
            }
        } else {
            // The cut is in a chunk that went to the spill file: it comes back into memory
            // (its first `within` lines), and the file loses what lay after it.
            let mut kept = Chunk::new();
            for i in 0..within {
                if let Some((text, meta)) = self.kept_line((chunk_no * CHUNK_LINES + i) as u64) {
                    kept.text.push_str(&text);
                    kept.ends.push(kept.text.len() as u32);
                    kept.meta.push(meta);
                }
            }
            let gone = self.evicted.split_off(chunk_no);
            self.chunks.clear();
            if within > 0 {
                self.chunks.push_back(kept);
            }
            if let Some(offset) = gone.iter().find_map(|e| e.location.map(|(o, _)| o)) {
                self.spill_written = offset;
                if let Some(file) = self.spill_file.as_mut() {
                    let rewound = file
                        .set_len(offset)
                        .and_then(|()| file.seek(SeekFrom::Start(offset)).map(|_| ()));
                    if let Err(e) = rewound {
                        let path = self.spill_path.clone().unwrap_or_default();
                        self.spill_error = Some(format!("{}: {e}", path.display()));
                    }
                }
            }
        }
        self.mem_bytes = self.chunks.iter().map(Chunk::bytes).sum();
        self.stored = len;
        self.total = self.total.min(len);
    }

    /// Line `index`, if it exists; lines that were dropped read as a note saying so.
    pub fn line(&self, index: u64) -> Option<(Cow<'_, str>, LineMeta)> {
        if index >= self.total {
            return None;
        }
        self.kept_line(index)
    }

    /// Line `index` of the kept ones, shown or not.
    fn kept_line(&self, index: u64) -> Option<(Cow<'_, str>, LineMeta)> {
        if index >= self.stored {
            return None;
        }
        let chunk_no = (index / CHUNK_LINES as u64) as usize;
        let within = (index % CHUNK_LINES as u64) as usize;
        if chunk_no >= self.evicted.len() {
            let chunk = self.chunks.get(chunk_no - self.evicted.len())?;
            return Some((Cow::Borrowed(chunk.line(within)), chunk.meta[within]));
        }
        let evicted = &self.evicted[chunk_no];
        let meta = evicted.meta(within);
        let text = match self.with_loaded(chunk_no, |loaded| loaded.line(within).to_string()) {
            Some(text) => text,
            None => "[line not kept: the log spill file is unavailable]".to_string(),
        };
        Some((Cow::Owned(text), meta))
    }

    /// Lines `start..start+count` (fewer at the end).
    pub fn lines(&self, start: u64, count: usize) -> Vec<(Cow<'_, str>, LineMeta)> {
        (start..self.total.min(start.saturating_add(count as u64)))
            .filter_map(|i| self.line(i))
            .collect()
    }

    /// The next line at or after `from` (forward) or at or before `from` (backward) whose
    /// visible text contains `needle`; lowercase needles match any case.
    pub fn find(&self, needle: &str, from: u64, forward: bool) -> Option<u64> {
        if needle.is_empty() || self.total == 0 {
            return None;
        }
        let from = from.min(self.total - 1);
        let matcher = Matcher::new(needle);
        // Only the chunks of the lines shown.
        let chunk_count = ((self.total - 1) / CHUNK_LINES as u64) as usize + 1;
        let first_chunk = (from / CHUNK_LINES as u64) as usize;
        let order: Box<dyn Iterator<Item = usize>> = if forward {
            Box::new(first_chunk..chunk_count)
        } else {
            Box::new((0..=first_chunk).rev())
        };
        for chunk_no in order {
            if let Some(i) = self.search_chunk(chunk_no, &matcher, from, forward) {
                return Some((chunk_no * CHUNK_LINES + i) as u64);
            }
        }
        None
    }

    /// The first line in `start..end` for which `pred` holds over its visible text.
    pub fn first_matching(
        &self,
        start: u64,
        end: u64,
        mut pred: impl FnMut(&str) -> bool,
    ) -> Option<u64> {
        (start..end.min(self.total)).find(|&i| {
            self.line(i)
                .is_some_and(|(text, _)| pred(&ansi::plain(&text)))
        })
    }

    /// The matching line of chunk `chunk_no` nearest to `from` in the search direction.
    fn search_chunk(
        &self,
        chunk_no: usize,
        matcher: &Matcher,
        from: u64,
        forward: bool,
    ) -> Option<usize> {
        let base = (chunk_no * CHUNK_LINES) as u64;
        let in_range = |i: usize| {
            let index = base + i as u64;
            if index >= self.total {
                false
            } else if forward {
                index >= from
            } else {
                index <= from
            }
        };
        let hits = if chunk_no >= self.evicted.len() {
            let chunk = self.chunks.get(chunk_no - self.evicted.len())?;
            let mut bounds = Vec::with_capacity(chunk.ends.len());
            let mut start = 0usize;
            for &end in &chunk.ends {
                bounds.push((start, end as usize));
                start = end as usize;
            }
            matcher.lines_matching(&chunk.text, &bounds)
        } else {
            let loaded = self.load(chunk_no)?;
            matcher.lines_matching(&loaded.text, &loaded.bounds)
        };
        let mut hits = hits.into_iter().filter(|&i| in_range(i));
        if forward {
            hits.next()
        } else {
            hits.next_back()
        }
    }

    fn with_loaded<R>(&self, chunk_no: usize, f: impl FnOnce(&Loaded) -> R) -> Option<R> {
        let mut cache = match self.cache.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if cache.as_ref().is_none_or(|(n, _)| *n != chunk_no) {
            *cache = Some((chunk_no, self.load(chunk_no)?));
        }
        cache.as_ref().map(|(_, loaded)| f(loaded))
    }

    fn load(&self, chunk_no: usize) -> Option<Loaded> {
        let (offset, len) = self.evicted.get(chunk_no)?.location?;
        let path = self.spill_path.as_ref()?;
        let mut file = File::open(path).ok()?;
        file.seek(SeekFrom::Start(offset)).ok()?;
        let mut bytes = vec![0u8; len as usize];
        file.read_exact(&mut bytes).ok()?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        let mut bounds = Vec::with_capacity(CHUNK_LINES);
        let mut start = 0;
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                bounds.push((start, i));
                start = i + 1;
            }
        }
        Some(Loaded { text, bounds })
    }

    fn evict_front(&mut self) {
        let Some(chunk) = self.chunks.pop_front() else {
            return;
        };
        self.mem_bytes = self.mem_bytes.saturating_sub(chunk.bytes());
        let mut runs: Vec<(u32, LineMeta)> = Vec::new();
        for meta in &chunk.meta {
            match runs.last_mut() {
                Some((count, last)) if last == meta => *count += 1,
                _ => runs.push((1, *meta)),
            }
        }
        let location = self.spill(&chunk);
        self.evicted.push(Evicted {
            lines: chunk.ends.len(),
            runs,
            location,
        });
    }

    /// Append a chunk to the spill file; `None` when there is none or writing failed.
    fn spill(&mut self, chunk: &Chunk) -> Option<(u64, u64)> {
        if self.spill_error.is_some() {
            return None;
        }
        let path = self.spill_path.as_ref()?;
        if self.spill_file.is_none() {
            match File::create(path) {
                Ok(file) => self.spill_file = Some(file),
                Err(e) => {
                    self.spill_error = Some(format!("{}: {e}", path.display()));
                    return None;
                }
            }
        }
        let mut bytes = Vec::with_capacity(chunk.text.len() + chunk.ends.len());
        for i in 0..chunk.ends.len() {
            bytes.extend_from_slice(chunk.line(i).as_bytes());
            bytes.push(b'\n');
        }
        let file = self.spill_file.as_mut()?;
        match file.write_all(&bytes) {
            Ok(()) => {
                let offset = self.spill_written;
                self.spill_written += bytes.len() as u64;
                Some((offset, bytes.len() as u64))
            }
            Err(e) => {
                self.spill_error = Some(format!("{}: {e}", path.display()));
                None
            }
        }
    }

    /// Lines per evicted chunk (all full); exposed for tests.
    #[cfg(test)]
    fn evicted_chunk_lines(&self) -> Vec<usize> {
        self.evicted.iter().map(|e| e.lines).collect()
    }
}

/// How a line is kept: as it is, or cut at [`MAX_LINE_BYTES`] with a note of how much was cut.
fn stored_form(line: &str) -> Cow<'_, str> {
    if line.len() <= MAX_LINE_BYTES {
        return Cow::Borrowed(line);
    }
    let mut cut = MAX_LINE_BYTES;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    Cow::Owned(format!(
        "{} … [{} more bytes]",
        &line[..cut],
        line.len() - cut
    ))
}

/// Smart-case substring matching (a needle without capitals matches any case) on the text
/// without escape sequences. A chunk is searched as one haystack (one regex scan, not one per
/// line); lines holding escape sequences are stripped and matched one by one.
struct Matcher {
    regex: Option<regex::Regex>,
    escape: Option<regex::Regex>,
}

impl Matcher {
    fn new(needle: &str) -> Self {
        let fold = !needle.chars().any(char::is_uppercase);
        let regex = regex::RegexBuilder::new(&regex::escape(needle))
            .case_insensitive(fold)
            .build()
            .ok();
        Matcher {
            regex,
            escape: regex::Regex::new("\x1b").ok(),
        }
    }

    /// The lines (indices into `bounds`, ascending) of `text` that match.
    fn lines_matching(&self, text: &str, bounds: &[(usize, usize)]) -> Vec<usize> {
        let (Some(regex), Some(escape)) = (&self.regex, &self.escape) else {
            return Vec::new();
        };
        let line_at = |offset: usize| bounds.partition_point(|&(_, end)| end <= offset);
        let mut escaped: Vec<usize> = escape.find_iter(text).map(|m| line_at(m.start())).collect();
        escaped.dedup();
        let mut hits: Vec<usize> = Vec::new();
        let mut at = 0;
        while let Some(m) = regex.find_at(text, at) {
            let line = line_at(m.start());
            match bounds.get(line) {
                Some(&(_, end)) if m.end() <= end => {
                    if escaped.binary_search(&line).is_err() {
                        hits.push(line);
                    }
                    // The next line (a line matches once).
                    at = end;
                }
                // Across a line boundary: look again just after where it started.
                Some(_) => at = m.start() + 1,
                None => break,
            }
            while at < text.len() && !text.is_char_boundary(at) {
                at += 1;
            }
        }
        for line in escaped {
            if let Some(&(start, end)) = bounds.get(line) {
                if regex.is_match(&ansi::strip(&text[start..end])) {
                    hits.push(line);
                }
            }
        }
        hits.sort_unstable();
        hits.dedup();
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: LineMeta = LineMeta {
        origin: 0,
        kind: LineKind::Stdout,
    };

    fn filled(spill: Option<PathBuf>, lines: u64, cap: usize) -> LogBuf {
        let mut buf = LogBuf::new(spill, cap);
        for i in 0..lines {
            let meta = LineMeta {
                origin: (i / 5000) as u32,
                kind: if i % 2 == 0 {
                    LineKind::Stdout
                } else {
                    LineKind::Stderr
                },
            };
            buf.push(&format!("line {i} of the build"), meta);
        }
        buf
    }

    #[test]
    fn bounded_memory_spills_and_reads_back_every_line() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("tui-log-spill.txt");
        let buf = filled(Some(spill.clone()), 50_000, 256 * 1024);
        assert_eq!(buf.len(), 50_000);
        assert!(buf.memory_bytes() < 1024 * 1024, "{}", buf.memory_bytes());
        assert!(buf.evicted_lines() > 0);
        assert!(buf.evicted_chunk_lines().iter().all(|&n| n == CHUNK_LINES));
        for i in [0u64, 1, 4095, 4096, 20_001, 49_999] {
            let (text, meta) = buf.line(i).unwrap();
            assert_eq!(text, format!("line {i} of the build"));
            assert_eq!(meta.origin, (i / 5000) as u32);
            assert_eq!(meta.kind == LineKind::Stderr, i % 2 == 1);
        }
        assert!(buf.line(50_000).is_none());
        let on_disk = std::fs::read_to_string(&spill).unwrap();
        assert!(on_disk.starts_with("line 0 of the build\nline 1 of the build\n"));
    }

    #[test]
    fn without_a_spill_file_old_lines_are_dropped_visibly() {
        let buf = filled(None, 20_000, 128 * 1024);
        let (text, _) = buf.line(0).unwrap();
        assert!(text.contains("not kept"), "{text}");
        let (text, _) = buf.line(19_999).unwrap();
        assert_eq!(text, "line 19999 of the build");
    }

    #[test]
    fn search_is_smart_case_in_both_directions_and_through_the_spill() {
        let dir = tempfile::tempdir().unwrap();
        let mut buf = filled(Some(dir.path().join("spill.txt")), 30_000, 256 * 1024);
        buf.push(
            "\x1b[31mERROR\x1b[0m: Unsupported operator aten::unique",
            OUT,
        );
        assert_eq!(buf.find("error: unsupported", 0, true), Some(30_000));
        assert_eq!(buf.find("ERROR: Unsupported", 0, true), Some(30_000));
        assert_eq!(buf.find("Error", 0, true), None);
        assert_eq!(buf.find("line 12 of", 29_999, false), Some(12));
        assert_eq!(buf.find("line 12 of", 13, true), None);
        assert_eq!(buf.find("line 25000 ", 100, true), Some(25_000));
    }

    #[test]
    fn a_match_never_spans_two_lines_and_escapes_do_not_hide_one() {
        let mut buf = LogBuf::new(None, DEFAULT_MEMORY_CAP);
        for line in [
            "xxab",
            "cdxx",
            "\x1b[1mer\x1b[0mror here",
            "\x1b[31mplain\x1b[0m",
            "abcd",
        ] {
            buf.push(line, OUT);
        }
        assert_eq!(buf.find("bc", 0, true), Some(4));
        assert_eq!(buf.find("error", 0, true), Some(2));
        assert_eq!(
            buf.find("31m", 0, true),
            None,
            "escape sequences are not text"
        );
        assert_eq!(buf.find("plain", 4, false), Some(3));
    }

    #[test]
    fn hidden_lines_are_taken_again_or_cut_where_they_differ() {
        let text = |buf: &LogBuf, i: u64| buf.line(i).map(|(t, _)| t.into_owned());
        let mut buf = LogBuf::new(None, DEFAULT_MEMORY_CAP);
        for i in 0..10 {
            buf.push(&format!("l{i}"), OUT);
        }
        assert!(buf.can_show(10) && !buf.can_show(11));
        buf.show(4);
        assert_eq!(buf.len(), 4);
        assert!(buf.line(4).is_none());
        assert_eq!(buf.find("l7", 0, true), None, "hidden lines are not found");
        buf.push("l4", OUT);
        assert_eq!(buf.len(), 5);
        assert!(buf.can_show(10), "the same line is taken again");
        buf.push("other", OUT);
        assert_eq!(buf.len(), 6);
        assert!(!buf.can_show(7), "a different one cuts the rest");
        assert_eq!(text(&buf, 5).as_deref(), Some("other"));
        buf.push(&"é".repeat(MAX_LINE_BYTES), OUT);
        buf.show(6);
        buf.push(&"é".repeat(MAX_LINE_BYTES), OUT);
        assert!(buf.can_show(7), "a cut long line compares as kept");

        // Going back into a chunk that went to the spill file.
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("spill.txt");
        let mut buf = filled(Some(spill.clone()), 30_000, 256 * 1024);
        assert!(buf.evicted_lines() > 8_192);
        buf.show(5_000);
        let meta = |i: u64| LineMeta {
            origin: (i / 5000) as u32,
            kind: if i.is_multiple_of(2) {
                LineKind::Stdout
            } else {
                LineKind::Stderr
            },
        };
        buf.push("line 5000 of the build", meta(5000));
        assert!(buf.can_show(30_000));
        buf.push("a different line", OUT);
        assert_eq!(buf.len(), 5_002);
        assert!(!buf.can_show(5_003));
        assert_eq!(buf.evicted_lines(), 4_096, "chunk 1 is back in memory");
        assert_eq!(
            std::fs::metadata(&spill).unwrap().len(),
            buf.spilled_bytes(),
            "the spill file lost what lay after chunk 0"
        );
        for i in 5_002..30_000u64 {
            buf.push(&format!("again {i}"), OUT);
        }
        assert!(buf.evicted_lines() > 8_192, "it spills again");
        for (i, want) in [
            (100, "line 100 of the build"),
            (4_096, "line 4096 of the build"),
            (5_000, "line 5000 of the build"),
            (5_001, "a different line"),
            (12_000, "again 12000"),
            (29_999, "again 29999"),
        ] {
            assert_eq!(text(&buf, i).as_deref(), Some(want), "line {i}");
        }
        assert_eq!(buf.find("a different", 0, true), Some(5_001));
    }

    #[test]
    fn long_lines_are_cut_with_a_note() {
        let mut buf = LogBuf::new(None, DEFAULT_MEMORY_CAP);
        buf.push(&"é".repeat(MAX_LINE_BYTES), OUT);
        let (text, _) = buf.line(0).unwrap();
        assert!(text.len() < MAX_LINE_BYTES + 64);
        assert!(
            text.ends_with("more bytes]"),
            "{}",
            &text[text.len() - 40..]
        );
    }
}
