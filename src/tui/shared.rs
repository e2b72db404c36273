//! [`SharedVec`]: a growable list whose clone is cheap, so the replay can keep many copies of
//! the TUI's state (one every few hundred events) to seek backwards without re-applying the
//! whole recording.
//!
//! Elements live in chunks of [`CHUNK`] behind `Arc`s. Cloning copies the chunk pointers, not
//! the elements; changing an element copies its chunk first if another clone still holds it
//! (copy on write). The state only ever changes its newest elements (a call's result, a
//! command's last log line), so a clone shares all but the last chunk or two with the
//! original. Elements are dropped from the front one by one (the transcript's bound).
//!
//! Invariant: every chunk but the last holds exactly [`CHUNK`] elements; the first `skip`
//! elements of the first chunk are already dropped.

use std::collections::VecDeque;
use std::sync::Arc;

/// Elements per chunk.
pub const CHUNK: usize = 256;

pub struct SharedVec<T> {
    chunks: VecDeque<Arc<Vec<T>>>,
    skip: usize,
    len: usize,
}

impl<T> Default for SharedVec<T> {
    fn default() -> Self {
        SharedVec {
            chunks: VecDeque::new(),
            skip: 0,
            len: 0,
        }
    }
}

impl<T> Clone for SharedVec<T> {
    fn clone(&self) -> Self {
        SharedVec {
            chunks: self.chunks.clone(),
            skip: self.skip,
            len: self.len,
        }
    }
}

impl<T: Clone> SharedVec<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// (chunk, offset) of element `index`.
    fn locate(&self, index: usize) -> (usize, usize) {
        let at = index + self.skip;
        (at / CHUNK, at % CHUNK)
    }

    pub fn get(&self, index: usize) -> Option<&T> {
        if index >= self.len {
            return None;
        }
        let (chunk, offset) = self.locate(index);
        self.chunks.get(chunk).and_then(|c| c.get(offset))
    }

    /// The element, copying its chunk first when a clone shares it.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        if index >= self.len {
            return None;
        }
        let (chunk, offset) = self.locate(index);
        self.chunks
            .get_mut(chunk)
            .and_then(|c| Arc::make_mut(c).get_mut(offset))
    }

    #[cfg(test)]
    pub fn back(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    pub fn push(&mut self, value: T) {
        let full = self.chunks.back().is_none_or(|c| c.len() >= CHUNK);
        if full {
            self.chunks.push_back(Arc::new(Vec::with_capacity(CHUNK)));
        }
        if let Some(last) = self.chunks.back_mut() {
            Arc::make_mut(last).push(value);
            self.len += 1;
        }
    }

    /// Drop the first element (its chunk is freed once all of it is dropped).
    pub fn pop_front(&mut self) {
        if self.len == 0 {
            return;
        }
        self.len -= 1;
        self.skip += 1;
        if self.skip >= CHUNK {
            self.chunks.pop_front();
            self.skip = 0;
        }
    }

    /// The elements, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        let skip = self.skip;
        self.chunks
            .iter()
            .enumerate()
            .flat_map(move |(i, chunk)| chunk.get(if i == 0 { skip } else { 0 }..).unwrap_or(&[]))
    }
}

impl<T: Clone + PartialEq> PartialEq for SharedVec<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<T: Clone + std::fmt::Debug> std::fmt::Debug for SharedVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Clone> FromIterator<T> for SharedVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v = SharedVec::new();
        for value in iter {
            v.push(value);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_a_deque_and_clones_share_until_written() {
        let mut v: SharedVec<usize> = (0..1000).collect();
        assert_eq!(v.len(), 1000);
        assert_eq!(v.get(999), Some(&999));
        assert_eq!(v.iter().next_back(), Some(&999));
        let snapshot = v.clone();
        *v.get_mut(10).unwrap() = 7;
        v.push(1000);
        assert_eq!(snapshot.get(10), Some(&10), "the clone keeps its values");
        assert_eq!(snapshot.len(), 1000);
        assert_eq!(v.get(10), Some(&7));
        // Only the written chunks were copied.
        assert!(Arc::ptr_eq(&v.chunks[1], &snapshot.chunks[1]));
        assert!(!Arc::ptr_eq(&v.chunks[0], &snapshot.chunks[0]));
        for _ in 0..300 {
            v.pop_front();
        }
        assert_eq!(v.len(), 701);
        assert_eq!(v.get(0), Some(&300));
        assert_eq!(v.iter().next(), Some(&300));
        assert_eq!(v.iter().count(), 701);
        assert_eq!(v.back(), Some(&1000));
        assert!(v.get(701).is_none());
        let expected: Vec<usize> = (300..1001).collect();
        assert_eq!(v.iter().copied().collect::<Vec<_>>(), expected);
        let mut small: SharedVec<u8> = SharedVec::new();
        small.push(1);
        small.pop_front();
        small.pop_front();
        assert!(small.is_empty());
        small.push(2);
        assert_eq!(small.get(0), Some(&2));
        assert_eq!(small, [2u8].into_iter().collect());
    }
}
