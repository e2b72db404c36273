//! GGUF bytes built from parts (header, key-value pairs, tensor infos): for the reader's
//! tests and for the reliability suite, which mutates them ([`crate::bench::reliability`]).

/// Builds GGUF bytes.
pub(crate) struct GgufBuilder {
    kvs: Vec<u8>,
    kv_count: u64,
    tensors: Vec<u8>,
    tensor_count: u64,
    pub(crate) version: u32,
}

/// A GGUF string: its length (u64, little-endian), then its bytes.
pub(crate) fn s(text: &str) -> Vec<u8> {
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(text.as_bytes());
    out
}

impl GgufBuilder {
    pub(crate) fn new() -> Self {
        GgufBuilder {
            kvs: Vec::new(),
            kv_count: 0,
            tensors: Vec::new(),
            tensor_count: 0,
            version: 3,
        }
    }

    pub(crate) fn kv(mut self, key: &str, value_type: u32, value: &[u8]) -> Self {
        self.kvs.extend(s(key));
        self.kvs.extend(value_type.to_le_bytes());
        self.kvs.extend_from_slice(value);
        self.kv_count += 1;
        self
    }

    pub(crate) fn string(self, key: &str, value: &str) -> Self {
        self.kv(key, 8, &s(value))
    }

    pub(crate) fn u32(self, key: &str, value: u32) -> Self {
        self.kv(key, 4, &value.to_le_bytes())
    }

    pub(crate) fn tensor(mut self, name: &str, dims: &[u64], ggml_type: u32, offset: u64) -> Self {
        self.tensors.extend(s(name));
        self.tensors.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            self.tensors.extend(d.to_le_bytes());
        }
        self.tensors.extend(ggml_type.to_le_bytes());
        self.tensors.extend(offset.to_le_bytes());
        self.tensor_count += 1;
        self
    }

    /// The header only (no alignment padding, no data).
    pub(crate) fn header(&self) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend(self.version.to_le_bytes());
        out.extend(self.tensor_count.to_le_bytes());
        out.extend(self.kv_count.to_le_bytes());
        out.extend_from_slice(&self.kvs);
        out.extend_from_slice(&self.tensors);
        out
    }

    /// Header, padding to `alignment`, then `data` bytes.
    pub(crate) fn file(&self, alignment: usize, data: usize) -> Vec<u8> {
        let mut out = self.header();
        while !out.len().is_multiple_of(alignment) {
            out.push(0);
        }
        out.extend(std::iter::repeat_n(0u8, data));
        out
    }
}
