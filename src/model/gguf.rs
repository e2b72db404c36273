//! A pure-Rust reader of GGUF metadata (versions 2 and 3, little-endian): the header, the
//! key-value pairs and the tensor infos, read through a buffered reader without loading the
//! file. Big arrays (a tokenizer's 262k token strings) are skipped, keeping only their length.
//! The tensor infos give the parameter count and let the reader check that the tensor data fits
//! in the file, so a cut-off download is reported as truncated rather than failing later inside
//! llama.cpp. Any input yields a one-line error naming the file, never a panic.

use crate::safe_read::{self, Problem};
use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufReader, Read, Seek};
use std::path::{Path, PathBuf};

/// A string longer than this is taken as a sign of corruption.
pub const MAX_STRING_BYTES: u64 = 1 << 30;
/// Metadata strings longer than this are kept cut (the rest is skipped).
const KEPT_STRING_BYTES: u64 = 64 * 1024;
/// ggml tensors have at most 4 dimensions; allow some slack before calling it corrupt.
const MAX_DIMS: u32 = 8;
/// Arrays of arrays nest at most this deep.
const MAX_ARRAY_DEPTH: u32 = 8;
/// `general.alignment` when the file does not say.
const DEFAULT_ALIGNMENT: u64 = 32;

/// What the metadata of a GGUF file says.
#[derive(Debug, Clone, PartialEq)]
pub struct GgufInfo {
    pub path: PathBuf,
    pub file_size: u64,
    pub version: u32,
    pub tensor_count: u64,
    /// `general.architecture`, e.g. `gemma3`, `llama`, `qwen3`.
    pub architecture: Option<String>,
    /// `general.name`.
    pub name: Option<String>,
    /// `<architecture>.context_length`: the context the model was trained for.
    pub context_length: Option<u64>,
    /// The sum of the tensors' element counts.
    pub parameters: u64,
    /// From `general.file_type` (e.g. `Q4_K_M`), else the tensor type holding most elements.
    pub quantization: String,
    /// Whether `tokenizer.chat_template` (or a named variant) is present.
    pub has_chat_template: bool,
    /// `<architecture>.vocab_size`, else the length of `tokenizer.ggml.tokens`.
    pub vocab_size: Option<u64>,
    /// Every key: scalars rendered as text (long strings cut), arrays as `[<type>; N]`.
    pub metadata: BTreeMap<String, String>,
}

/// Why a file could not be read as GGUF. Every message is one line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("{}: no such file", path.display())]
    Missing { path: PathBuf },
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a GGUF file (starts with {start})", path.display())]
    NotGguf { path: PathBuf, start: String },
    #[error("{}: unsupported GGUF version {version} ({hint})", path.display())]
    UnsupportedVersion {
        path: PathBuf,
        version: u32,
        hint: &'static str,
    },
    #[error(
        "{}: truncated GGUF: the header ends at byte {size} of at least {needed}; the file is incomplete, fetch or copy it again",
        path.display()
    )]
    TruncatedHeader {
        path: PathBuf,
        size: u64,
        needed: u64,
    },
    #[error(
        "{}: truncated GGUF: the tensor data ends at byte {size} of {needed}; the file is incomplete, fetch or copy it again",
        path.display()
    )]
    TruncatedData {
        path: PathBuf,
        size: u64,
        needed: u64,
    },
    #[error("{}: corrupt GGUF at byte {offset}: {what}", path.display())]
    Corrupt {
        path: PathBuf,
        offset: u64,
        what: String,
    },
}

/// Read the metadata of the GGUF file at `path`.
pub fn read_info(path: &Path) -> Result<GgufInfo, GgufError> {
    let io = |source: std::io::Error| {
        if source.kind() == std::io::ErrorKind::NotFound {
            GgufError::Missing {
                path: path.to_path_buf(),
            }
        } else {
            GgufError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    };
    // Only a regular file: a FIFO would block the open, a device never ends.
    let (file, meta) = safe_read::open_regular(path).map_err(|e| match e.problem {
        Problem::Io(source) => io(source),
        Problem::NotRegular {
            kind: "a directory",
        } => GgufError::NotGguf {
            path: path.to_path_buf(),
            start: "nothing: it is a folder".to_string(),
        },
        other => GgufError::NotGguf {
            path: path.to_path_buf(),
            start: format!("nothing: {other}"),
        },
    })?;
    read_from(BufReader::with_capacity(1 << 16, file), meta.len(), path)
}

/// Read GGUF metadata from `reader`, which holds `size` bytes; `path` names it in messages.
pub fn read_from<R: Read + Seek>(reader: R, size: u64, path: &Path) -> Result<GgufInfo, GgufError> {
    let mut r = Reader {
        inner: reader,
        pos: 0,
        size,
        path,
    };
    r.magic()?;
    let version = r.u32()?;
    if version != 2 && version != 3 {
        let hint = if version == 1 {
            "version 1 files predate the 64-bit counts; convert it again with a current llama.cpp"
        } else if version.swap_bytes() == 2 || version.swap_bytes() == 3 {
            "a big-endian file; only little-endian GGUF is supported"
        } else {
            "this reader knows versions 2 and 3"
        };
        return Err(GgufError::UnsupportedVersion {
            path: path.to_path_buf(),
            version,
            hint,
        });
    }
    let tensor_count = r.u64()?;
    let kv_count = r.u64()?;

    let mut values: BTreeMap<String, Value> = BTreeMap::new();
    for _ in 0..kv_count {
        let key = r.string(KEPT_STRING_BYTES)?;
        let at = r.pos;
        let value_type = r.u32()?;
        let value = r.value(value_type, 0).map_err(|e| match e {
            GgufError::Corrupt { path, offset, what } => GgufError::Corrupt {
                path,
                offset,
                what: format!("{what} (key {key:?} at byte {at})"),
            },
            other => other,
        })?;
        values.insert(key, value);
    }

    let alignment = match values.get("general.alignment") {
        None => DEFAULT_ALIGNMENT,
        Some(value) => match value.as_u64() {
            Some(a) if a > 0 && a.is_power_of_two() => a,
            _ => return Err(r.corrupt(format!("general.alignment is {value}, not a power of two"))),
        },
    };

    let mut parameters: u64 = 0;
    let mut elements_by_type: BTreeMap<u32, u64> = BTreeMap::new();
    let mut data_end: u64 = 0;
    for _ in 0..tensor_count {
        let at = r.pos;
        let name = r.string(1024)?;
        let n_dims = r.u32()?;
        if n_dims > MAX_DIMS {
            return Err(r.corrupt(format!(
                "tensor {name:?} (info at byte {at}) claims {n_dims} dimensions"
            )));
        }
        let mut elements: u64 = 1;
        for _ in 0..n_dims {
            let dim = r.u64()?;
            elements = elements.checked_mul(dim).ok_or_else(|| {
                r.corrupt(format!(
                    "tensor {name:?} (info at byte {at}) has more elements than fit in 64 bits"
                ))
            })?;
        }
        let ggml_type = r.u32()?;
        let offset = r.u64()?;
        if !offset.is_multiple_of(alignment) {
            return Err(r.corrupt(format!(
                "tensor {name:?} (info at byte {at}) starts at data offset {offset}, not a multiple of the alignment {alignment}"
            )));
        }
        parameters = parameters.saturating_add(elements);
        let slot = elements_by_type.entry(ggml_type).or_insert(0);
        *slot = slot.saturating_add(elements);
        if let Some((block, bytes)) = type_layout(ggml_type) {
            if !elements.is_multiple_of(block) {
                return Err(r.corrupt(format!(
                    "tensor {name:?} (info at byte {at}) has {elements} elements, not a multiple of the {} block of {block}",
                    type_name(ggml_type)
                )));
            }
            let end = (elements / block)
                .checked_mul(bytes)
                .and_then(|n| n.checked_add(offset))
                .ok_or_else(|| {
                    r.corrupt(format!(
                        "tensor {name:?} (info at byte {at}) ends beyond 64-bit offsets"
                    ))
                })?;
            data_end = data_end.max(end);
        }
    }
    if tensor_count > 0 {
        let data_start = r.pos.div_ceil(alignment).saturating_mul(alignment);
        let needed = data_start.saturating_add(data_end);
        if needed > size {
            return Err(GgufError::TruncatedData {
                path: path.to_path_buf(),
                size,
                needed,
            });
        }
    }

    let text = |key: &str| match values.get(key) {
        Some(Value::Str(s)) => Some(s.clone()),
        _ => None,
    };
    let architecture = text("general.architecture");
    let arch_u64 = |suffix: &str| {
        architecture
            .as_ref()
            .and_then(|arch| values.get(&format!("{arch}.{suffix}")))
            .and_then(Value::as_u64)
    };
    let context_length = arch_u64("context_length");
    let vocab_size = arch_u64("vocab_size").or(match values.get("tokenizer.ggml.tokens") {
        Some(Value::Array { len, .. }) => Some(*len),
        _ => None,
    });
    let quantization = values
        .get("general.file_type")
        .and_then(Value::as_u64)
        .and_then(file_type_name)
        .map(str::to_string)
        .or_else(|| {
            elements_by_type
                .iter()
                .max_by_key(|(ty, n)| (**n, std::cmp::Reverse(**ty)))
                .map(|(ty, _)| type_name(*ty))
        })
        .unwrap_or_else(|| "unknown".to_string());
    let has_chat_template = values
        .keys()
        .any(|k| k.starts_with("tokenizer.chat_template"));
    Ok(GgufInfo {
        path: path.to_path_buf(),
        file_size: size,
        version,
        tensor_count,
        name: text("general.name"),
        architecture,
        context_length,
        parameters,
        quantization,
        has_chat_template,
        vocab_size,
        metadata: values
            .iter()
            .map(|(k, v)| (k.clone(), v.to_string()))
            .collect(),
    })
}

/// A metadata value; arrays keep only their element type and length.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Unsigned(u64),
    Signed(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Str(String),
    Array { elem: u32, len: u64 },
}

impl Value {
    fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Unsigned(n) => Some(*n),
            Value::Signed(n) => u64::try_from(*n).ok(),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unsigned(n) => write!(f, "{n}"),
            Value::Signed(n) => write!(f, "{n}"),
            Value::F32(x) => write!(f, "{x}"),
            Value::F64(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Str(s) => f.write_str(s),
            Value::Array { elem, len } => write!(f, "[{}; {len}]", value_type_name(*elem)),
        }
    }
}

/// The name of a GGUF metadata value type.
fn value_type_name(t: u32) -> String {
    match t {
        0 => "u8",
        1 => "i8",
        2 => "u16",
        3 => "i16",
        4 => "u32",
        5 => "i32",
        6 => "f32",
        7 => "bool",
        8 => "string",
        9 => "array",
        10 => "u64",
        11 => "i64",
        12 => "f64",
        _ => return format!("type {t}"),
    }
    .to_string()
}

/// Bytes of one element of a fixed-size metadata value type.
fn value_type_size(t: u32) -> Option<u64> {
    match t {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

/// The name of a ggml tensor type (`GGML_TYPE_*`).
pub fn type_name(t: u32) -> String {
    let name = match t {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        6 => "Q5_0",
        7 => "Q5_1",
        8 => "Q8_0",
        9 => "Q8_1",
        10 => "Q2_K",
        11 => "Q3_K",
        12 => "Q4_K",
        13 => "Q5_K",
        14 => "Q6_K",
        15 => "Q8_K",
        16 => "IQ2_XXS",
        17 => "IQ2_XS",
        18 => "IQ3_XXS",
        19 => "IQ1_S",
        20 => "IQ4_NL",
        21 => "IQ3_S",
        22 => "IQ2_S",
        23 => "IQ4_XS",
        24 => "I8",
        25 => "I16",
        26 => "I32",
        27 => "I64",
        28 => "F64",
        29 => "IQ1_M",
        30 => "BF16",
        34 => "TQ1_0",
        35 => "TQ2_0",
        39 => "MXFP4",
        40 => "NVFP4",
        41 => "Q1_0",
        42 => "Q2_0",
        _ => return format!("ggml type {t}"),
    };
    name.to_string()
}

/// (elements per block, bytes per block) of a ggml tensor type; `None` when unknown.
fn type_layout(t: u32) -> Option<(u64, u64)> {
    Some(match t {
        0 => (1, 4),
        1 => (1, 2),
        2 => (32, 18),
        3 => (32, 20),
        6 => (32, 22),
        7 => (32, 24),
        8 => (32, 34),
        9 => (32, 36),
        10 => (256, 84),
        11 => (256, 110),
        12 => (256, 144),
        13 => (256, 176),
        14 => (256, 210),
        15 => (256, 292),
        16 => (256, 66),
        17 => (256, 74),
        18 => (256, 98),
        19 => (256, 50),
        20 => (32, 18),
        21 => (256, 110),
        22 => (256, 82),
        23 => (256, 136),
        24 => (1, 1),
        25 => (1, 2),
        26 => (1, 4),
        27 => (1, 8),
        28 => (1, 8),
        29 => (256, 56),
        30 => (1, 2),
        34 => (256, 54),
        35 => (256, 66),
        39 => (32, 17),
        40 => (64, 36),
        41 => (128, 18),
        42 => (64, 18),
        _ => return None,
    })
}

/// The name of a llama.cpp `general.file_type` (`LLAMA_FTYPE_*`).
fn file_type_name(t: u64) -> Option<&'static str> {
    Some(match t {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        4 => "Q4_1_SOME_F16",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        19 => "IQ2_XXS",
        20 => "IQ2_XS",
        21 => "Q2_K_S",
        22 => "IQ3_XS",
        23 => "IQ3_XXS",
        24 => "IQ1_S",
        25 => "IQ4_NL",
        26 => "IQ3_S",
        27 => "IQ3_M",
        28 => "IQ2_S",
        29 => "IQ2_M",
        30 => "IQ4_XS",
        31 => "IQ1_M",
        32 => "BF16",
        36 => "TQ1_0",
        37 => "TQ2_0",
        38 => "MXFP4_MOE",
        39 => "NVFP4",
        40 => "Q1_0",
        41 => "Q2_0",
        _ => return None,
    })
}

/// A position-tracking little-endian reader that never reads past the declared size.
struct Reader<'p, R> {
    inner: R,
    pos: u64,
    size: u64,
    path: &'p Path,
}

impl<R: Read + Seek> Reader<'_, R> {
    fn corrupt(&self, what: String) -> GgufError {
        GgufError::Corrupt {
            path: self.path.to_path_buf(),
            offset: self.pos,
            what,
        }
    }

    fn truncated(&self, n: u64) -> GgufError {
        GgufError::TruncatedHeader {
            path: self.path.to_path_buf(),
            size: self.size,
            needed: self.pos.saturating_add(n),
        }
    }

    /// Fail unless `n` more bytes are in the file.
    fn need(&self, n: u64) -> Result<(), GgufError> {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(self.truncated(n)),
        }
    }

    fn fill(&mut self, buf: &mut [u8]) -> Result<(), GgufError> {
        let n = buf.len() as u64;
        self.need(n)?;
        self.inner.read_exact(buf).map_err(|source| {
            if source.kind() == std::io::ErrorKind::UnexpectedEof {
                // The file shrank while it was being read.
                self.truncated(n)
            } else {
                GgufError::Io {
                    path: self.path.to_path_buf(),
                    source,
                }
            }
        })?;
        self.pos += n;
        Ok(())
    }

    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let mut buf = [0u8; N];
        self.fill(&mut buf)?;
        Ok(buf)
    }

    fn skip(&mut self, n: u64) -> Result<(), GgufError> {
        self.need(n)?;
        let step = i64::try_from(n).map_err(|_| self.truncated(n))?;
        self.inner
            .seek_relative(step)
            .map_err(|source| GgufError::Io {
                path: self.path.to_path_buf(),
                source,
            })?;
        self.pos += n;
        Ok(())
    }

    fn magic(&mut self) -> Result<(), GgufError> {
        let mut start = [0u8; 4];
        let available = self.size.min(4) as usize;
        self.fill(&mut start[..available])?;
        if available == 4 && &start == b"GGUF" {
            return Ok(());
        }
        let shown = &start[..available];
        let start = if shown.is_empty() {
            "nothing: the file is empty".to_string()
        } else if shown.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
            format!("{:?}", String::from_utf8_lossy(shown))
        } else {
            shown
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        Err(GgufError::NotGguf {
            path: self.path.to_path_buf(),
            start,
        })
    }

    fn u32(&mut self) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }

    fn u64(&mut self) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }

    /// The length of a string, checked against the 1 GiB limit and the file size.
    fn string_len(&mut self) -> Result<u64, GgufError> {
        let len = self.u64()?;
        if len > MAX_STRING_BYTES {
            return Err(self.corrupt(format!("a string claims {len} bytes (more than 1 GiB)")));
        }
        self.need(len)?;
        Ok(len)
    }

    /// A string, keeping at most `keep` bytes of it (the rest is skipped).
    fn string(&mut self, keep: u64) -> Result<String, GgufError> {
        let len = self.string_len()?;
        let kept = len.min(keep);
        let mut buf = vec![0u8; kept as usize];
        self.fill(&mut buf)?;
        self.skip(len - kept)?;
        let mut text = String::from_utf8_lossy(&buf).into_owned();
        if kept < len {
            text.push_str(&format!("… ({len} bytes)"));
        }
        Ok(text)
    }

    fn value(&mut self, value_type: u32, depth: u32) -> Result<Value, GgufError> {
        Ok(match value_type {
            0 => Value::Unsigned(u64::from(u8::from_le_bytes(self.bytes()?))),
            1 => Value::Signed(i64::from(i8::from_le_bytes(self.bytes()?))),
            2 => Value::Unsigned(u64::from(u16::from_le_bytes(self.bytes()?))),
            3 => Value::Signed(i64::from(i16::from_le_bytes(self.bytes()?))),
            4 => Value::Unsigned(u64::from(self.u32()?)),
            5 => Value::Signed(i64::from(i32::from_le_bytes(self.bytes()?))),
            6 => Value::F32(f32::from_le_bytes(self.bytes()?)),
            7 => Value::Bool(u8::from_le_bytes(self.bytes()?) != 0),
            8 => Value::Str(self.string(KEPT_STRING_BYTES)?),
            9 => {
                let elem = self.u32()?;
                let len = self.u64()?;
                self.skip_elements(elem, len, depth)?;
                Value::Array { elem, len }
            }
            10 => Value::Unsigned(self.u64()?),
            11 => Value::Signed(i64::from_le_bytes(self.bytes()?)),
            12 => Value::F64(f64::from_le_bytes(self.bytes()?)),
            other => return Err(self.corrupt(format!("unknown value type {other}"))),
        })
    }

    /// Skip `len` array elements of type `elem`, keeping nothing.
    fn skip_elements(&mut self, elem: u32, len: u64, depth: u32) -> Result<(), GgufError> {
        if let Some(size) = value_type_size(elem) {
            let total = len
                .checked_mul(size)
                .ok_or_else(|| self.truncated(u64::MAX))?;
            return self.skip(total);
        }
        match elem {
            8 => {
                // Each string takes at least its 8-byte length: fail early on absurd counts.
                self.need(len.saturating_mul(8))?;
                for _ in 0..len {
                    let n = self.string_len()?;
                    self.skip(n)?;
                }
                Ok(())
            }
            9 => {
                if depth >= MAX_ARRAY_DEPTH {
                    return Err(
                        self.corrupt(format!("arrays nested more than {MAX_ARRAY_DEPTH} deep"))
                    );
                }
                self.need(len.saturating_mul(12))?;
                for _ in 0..len {
                    let inner = self.u32()?;
                    let inner_len = self.u64()?;
                    self.skip_elements(inner, inner_len, depth + 1)?;
                }
                Ok(())
            }
            other => Err(self.corrupt(format!("array of unknown value type {other}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    use super::super::gguf_builder::{s, GgufBuilder as Builder};

    fn read(bytes: &[u8]) -> Result<GgufInfo, GgufError> {
        read_from(
            Cursor::new(bytes),
            bytes.len() as u64,
            Path::new("test.gguf"),
        )
    }

    fn array(elem: u32, len: u64, body: &[u8]) -> Vec<u8> {
        let mut out = elem.to_le_bytes().to_vec();
        out.extend(len.to_le_bytes());
        out.extend_from_slice(body);
        out
    }

    /// A small model-like file exercising every value type.
    fn sample() -> Builder {
        let mut tokens = Vec::new();
        for t in ["<pad>", "<eos>", "hello", "wörld"] {
            tokens.extend(s(t));
        }
        let mut nested = Vec::new();
        nested.extend(array(4, 2, &[1, 0, 0, 0, 2, 0, 0, 0]));
        nested.extend(array(8, 1, &s("x")));
        Builder::new()
            .string("general.architecture", "tiny")
            .string("general.name", "Tiny Test")
            .u32("general.file_type", 15)
            .kv("tiny.u8", 0, &[200])
            .kv("tiny.i8", 1, &[0xff])
            .kv("tiny.u16", 2, &600u16.to_le_bytes())
            .kv("tiny.i16", 3, &(-600i16).to_le_bytes())
            .u32("tiny.context_length", 4096)
            .kv("tiny.i32", 5, &(-7i32).to_le_bytes())
            .kv("tiny.f32", 6, &1.5f32.to_le_bytes())
            .kv("tiny.bool", 7, &[1])
            .kv("tiny.u64", 10, &u64::MAX.to_le_bytes())
            .kv("tiny.i64", 11, &i64::MIN.to_le_bytes())
            .kv("tiny.f64", 12, &0.25f64.to_le_bytes())
            .kv("tokenizer.ggml.tokens", 9, &array(8, 4, &tokens))
            .kv("tokenizer.ggml.scores", 9, &array(6, 4, &[0u8; 16]))
            .kv("tiny.nested", 9, &array(9, 2, &nested))
            .tensor("token_embd.weight", &[64, 4], 1, 0)
            .tensor("blk.0.ffn.weight", &[256, 2], 12, 512)
    }

    #[test]
    fn reads_every_value_type_and_the_tensors() {
        let builder = sample();
        // F16 64×4 = 512 bytes at 0; Q4_K 2 blocks = 288 bytes at 512.
        let bytes = builder.file(32, 800);
        let info = read(&bytes).unwrap();
        assert_eq!(info.version, 3);
        assert_eq!(info.tensor_count, 2);
        assert_eq!(info.architecture.as_deref(), Some("tiny"));
        assert_eq!(info.name.as_deref(), Some("Tiny Test"));
        assert_eq!(info.context_length, Some(4096));
        assert_eq!(info.vocab_size, Some(4));
        assert_eq!(info.parameters, 256 + 512);
        assert_eq!(info.quantization, "Q4_K_M");
        assert!(!info.has_chat_template);
        let m = &info.metadata;
        assert_eq!(m["tiny.u8"], "200");
        assert_eq!(m["tiny.i8"], "-1");
        assert_eq!(m["tiny.u16"], "600");
        assert_eq!(m["tiny.i16"], "-600");
        assert_eq!(m["tiny.i32"], "-7");
        assert_eq!(m["tiny.f32"], "1.5");
        assert_eq!(m["tiny.bool"], "true");
        assert_eq!(m["tiny.u64"], u64::MAX.to_string());
        assert_eq!(m["tiny.i64"], i64::MIN.to_string());
        assert_eq!(m["tiny.f64"], "0.25");
        assert_eq!(m["tokenizer.ggml.tokens"], "[string; 4]");
        assert_eq!(m["tokenizer.ggml.scores"], "[f32; 4]");
        assert_eq!(m["tiny.nested"], "[array; 2]");
        assert_eq!(m.len(), 17);
    }

    #[test]
    fn quantization_falls_back_to_the_type_with_most_elements_and_chat_templates_count() {
        let bytes = Builder::new()
            .string("tokenizer.chat_template", "{{ messages }}")
            .kv("llama.vocab_size", 4, &32000u32.to_le_bytes())
            .string("general.architecture", "llama")
            .tensor("a", &[32], 0, 0)
            .tensor("b", &[64], 8, 128)
            .file(32, 128 + 68);
        let info = read(&bytes).unwrap();
        assert_eq!(info.quantization, "Q8_0");
        assert!(info.has_chat_template);
        assert_eq!(info.vocab_size, Some(32000));
        assert_eq!(info.context_length, None);
    }

    #[test]
    fn version_2_reads_and_others_are_refused() {
        let mut builder = sample();
        builder.version = 2;
        assert_eq!(read(&builder.file(32, 800)).unwrap().version, 2);
        for (version, hint) in [
            (1, "version 1"),
            (0x0300_0000, "big-endian"),
            (7, "2 and 3"),
        ] {
            builder.version = version;
            let e = read(&builder.file(32, 800)).unwrap_err().to_string();
            assert!(e.contains("unsupported GGUF version"), "{e}");
            assert!(e.contains(hint), "{e}");
        }
    }

    #[test]
    fn alignment_decides_where_the_data_starts() {
        let builder = Builder::new()
            .u32("general.alignment", 256)
            .tensor("t", &[8], 0, 0);
        let header = builder.header().len();
        let start = header.div_ceil(256) * 256;
        let exact = builder.file(256, 32);
        assert_eq!(exact.len(), start + 32);
        assert!(read(&exact).is_ok());
        // With the default alignment of 32 the same bytes would fit; with 256 one byte short is not.
        let e = read(&exact[..exact.len() - 1]).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "test.gguf: truncated GGUF: the tensor data ends at byte {} of {}; the file is incomplete, fetch or copy it again",
                start + 31,
                start + 32
            )
        );
        let bad = Builder::new().u32("general.alignment", 24).file(32, 0);
        let e = read(&bad).unwrap_err().to_string();
        assert!(e.contains("not a power of two"), "{e}");
        let misaligned = Builder::new().tensor("t", &[8], 0, 4).file(32, 64);
        let e = read(&misaligned).unwrap_err().to_string();
        assert!(e.contains("not a multiple of the alignment 32"), "{e}");
    }

    #[test]
    fn truncation_at_every_byte_is_an_error_naming_the_file() {
        let bytes = sample().file(32, 800);
        let header = sample().header().len();
        for cut in 0..bytes.len() {
            let e = read(&bytes[..cut]).unwrap_err();
            let text = e.to_string();
            assert!(text.starts_with("test.gguf: "), "{text}");
            assert!(!text.contains('\n'), "{text}");
            if cut >= 4 {
                assert!(text.contains("truncated GGUF"), "cut {cut}: {text}");
            }
            if cut >= header {
                assert!(
                    matches!(e, GgufError::TruncatedData { .. }),
                    "cut {cut}: {text}"
                );
            }
        }
        assert!(read(&bytes).is_ok());
    }

    #[test]
    fn not_gguf_says_how_the_file_starts() {
        let e = read(b"hello world").unwrap_err().to_string();
        assert_eq!(e, "test.gguf: not a GGUF file (starts with \"hell\")");
        let e = read(&[0x7f, b'E', b'L', b'F', 2]).unwrap_err().to_string();
        assert_eq!(e, "test.gguf: not a GGUF file (starts with 7f 45 4c 46)");
        let e = read(b"").unwrap_err().to_string();
        assert!(e.contains("the file is empty"), "{e}");
    }

    #[test]
    fn absurd_lengths_are_corrupt_not_allocated() {
        let mut bytes = Builder::new().header();
        // kv_count 1, then a key claiming 2 GiB.
        bytes[16..24].copy_from_slice(&1u64.to_le_bytes());
        bytes.extend((2u64 << 30).to_le_bytes());
        bytes.extend([0u8; 64]);
        let e = read(&bytes).unwrap_err().to_string();
        assert!(e.contains("corrupt GGUF"), "{e}");
        assert!(e.contains("more than 1 GiB"), "{e}");

        let huge_array = Builder::new().kv("a", 9, &array(8, u64::MAX, &[])).header();
        assert!(matches!(
            read(&huge_array),
            Err(GgufError::TruncatedHeader { .. })
        ));
        let huge_u64_array = Builder::new()
            .kv("a", 9, &array(10, u64::MAX / 2, &[]))
            .header();
        assert!(read(&huge_u64_array).is_err());
        let overflow = Builder::new().tensor("t", &[u64::MAX, 3], 0, 0).file(32, 0);
        let e = read(&overflow).unwrap_err().to_string();
        assert!(e.contains("more elements than fit"), "{e}");
        let dims = Builder::new().tensor("t", &[1; 9], 0, 0).file(32, 0);
        assert!(read(&dims)
            .unwrap_err()
            .to_string()
            .contains("9 dimensions"));
        let unknown = Builder::new().kv("k", 77, &[0; 16]).header();
        let e = read(&unknown).unwrap_err().to_string();
        assert!(e.contains("unknown value type 77"), "{e}");
        assert!(e.contains("\"k\""), "{e}");
        let mut deep = array(4, 0, &[]);
        for _ in 0..20 {
            deep = array(9, 1, &deep);
        }
        let e = read(&Builder::new().kv("d", 9, &deep).header())
            .unwrap_err()
            .to_string();
        assert!(e.contains("nested"), "{e}");
    }

    #[test]
    fn long_strings_are_kept_cut_and_unknown_tensor_types_skip_the_size_check() {
        let long = "x".repeat(100_000);
        let bytes = Builder::new()
            .string("general.name", &long)
            .tensor("t", &[10], 999, 0)
            .file(32, 0);
        let info = read(&bytes).unwrap();
        let name = info.name.unwrap();
        assert!(
            name.ends_with("… (100000 bytes)"),
            "{}",
            &name[name.len() - 30..]
        );
        assert!(name.len() < 70_000);
        assert_eq!(info.quantization, "ggml type 999");
        assert_eq!(info.parameters, 10);
    }

    /// A tiny deterministic generator (no extra crates).
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn random_and_mutated_bytes_never_panic() {
        let good = sample().file(32, 800);
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for round in 0..4000 {
            let mut bytes = if round % 4 == 0 {
                let len = (rng.next() % 300) as usize;
                let mut b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                if len >= 8 && round % 8 == 0 {
                    b[..4].copy_from_slice(b"GGUF");
                    b[4..8].copy_from_slice(&3u32.to_le_bytes());
                }
                b
            } else {
                good.clone()
            };
            if round % 4 != 0 {
                for _ in 0..(1 + rng.next() % 4) {
                    let at = (rng.next() % bytes.len() as u64) as usize;
                    bytes[at] = rng.next() as u8;
                }
                let cut = (rng.next() % (bytes.len() as u64 + 1)) as usize;
                if round % 3 == 0 {
                    bytes.truncate(cut);
                }
            }
            if let Err(e) = read(&bytes) {
                let text = e.to_string();
                assert!(text.starts_with("test.gguf: "), "{text}");
                assert!(!text.contains('\n'), "{text}");
            }
        }
    }

    #[test]
    fn a_missing_file_and_a_folder_are_one_line_errors() {
        let e = read_info(Path::new("/nonexistent/x.gguf")).unwrap_err();
        assert_eq!(e.to_string(), "/nonexistent/x.gguf: no such file");
        let dir = std::env::temp_dir();
        let e = read_info(&dir).unwrap_err().to_string();
        assert!(e.contains("not a GGUF file"), "{e}");
    }
}
